"""Window ops written as `linalg.generic`s, marked so that `versa-static-tiles` can cut them.

A grouped (not depthwise) convolution with a dynamic batch, H or W has no named linalg op the
strategies take: `window_builders.grouped_conv` writes it as one generic, whose input reads
`oh·s + kh·d` (a shifted read that `tile_slicing` cannot cut by its maps alone). The mark
(`WINDOW`: layout, strides, dilations, the window's KH and KW, groups) says what the named
ops' names say, so `tile_slicing.spatial_windows` cuts the generic's H and W into static
windows as it does a named conv's, and versa-static-tiles builds each static tile as the static lowering
builds a grouped conv (`window_builders.conv_per_group`: a named conv per group in one loop,
which `strategies/grouped_conv.py` vectorizes). Without static-tiles (O0, O1) the generic
computes the conv as plain loops, marked or not.
"""

from typing import Any

from versa.mlir import ir

WINDOW = "versa.window"  # a generic that is a window op: its attributes (`mark`)


def mark(op: ir.Operation, attrs: dict[str, Any], kernel: tuple[int, int]) -> None:
    """Mark the window op `op` (layout, strides, dilations, groups of `attrs`; KH and KW)."""
    i64 = ir.IntegerType.get_signless(64)
    op.attributes[WINDOW] = ir.DictAttr.get(
        {
            "layout": ir.StringAttr.get(attrs["layout"]),
            "groups": ir.IntegerAttr.get(i64, attrs.get("groups", 1)),
            "strides": ir.DenseI64ArrayAttr.get([int(s) for s in attrs["strides"]]),
            "dilations": ir.DenseI64ArrayAttr.get([int(d) for d in attrs.get("dilations", (1, 1))]),
            "kernel": ir.DenseI64ArrayAttr.get([int(k) for k in kernel]),
        }
    )


def attrs_of(op: ir.Operation) -> dict[str, Any] | None:
    """The mark's attributes (`layout`, `groups`, `strides`, `dilations`, `kernel`), or None."""
    if op.name != "linalg.generic" or WINDOW not in op.attributes:
        return None
    marked = ir.DictAttr(op.attributes[WINDOW])
    return {
        "layout": ir.StringAttr(marked["layout"]).value,
        "groups": ir.IntegerAttr(marked["groups"]).value,
        **{key: tuple(ir.DenseI64ArrayAttr(marked[key])) for key in ("strides", "dilations", "kernel")},
    }


def spatial(op: ir.Operation) -> dict[int, tuple[int, int]]:
    """A marked generic's H and W (the same dims in its input and result): dim -> (stride,
    span = dilation·(K - 1) + 1); empty for any other op."""
    attrs = attrs_of(op)
    if attrs is None:
        return {}
    dims = (2, 3) if attrs["layout"] == "NCHW" else (1, 2)
    return {
        d: (attrs["strides"][i], attrs["dilations"][i] * (attrs["kernel"][i] - 1) + 1)
        for i, d in enumerate(dims)
    }


def grouped(op: ir.Operation) -> dict[str, Any] | None:
    """The attributes of a marked grouped conv (groups > 1), whose static tiles
    versa-static-tiles builds with `window_builders.conv_per_group`; else None."""
    attrs = attrs_of(op)
    return attrs if attrs is not None and attrs["groups"] > 1 else None
