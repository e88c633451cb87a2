"""i8 convs with a dynamic batch, H or W for `versa-int8-kernels`: filters packed once, before
versa-static-tiles cuts the conv, and the kernel on each static tile after it.

The dot-product kernel (`int8_dot.py`) is text for one static shape, and versa-static-tiles
runs each tile in a function of its own that takes the weights as an argument (tile functions
are shared by layers of equal shapes), so the constant filters are out of the kernel's reach
once the conv is cut. So the pass runs twice (passes/cpu/pipeline.py). Before static-tiles,
`packed_conv` replaces such a conv by a generic that computes the same sums from the filters
already packed for the kernel (`int8_pack.pack`: [P, KH, KW, C/G, NR·G], the start values an
input it does not read), marked as a window op (`common/window_marks.py`) so that
static-tiles cuts its H and W as a named conv's; its tiles pass the packed constants along as
any weight. After static-tiles, `tile_parts` reads a static tile of it back as the kernel's
operands and shape. Where nothing runs after static-tiles (or a tile stays dynamic), the
generic is the conv as plain loops: exact, only slow.
"""

from dataclasses import dataclass

import numpy as np
from versa.mlir import arith, ir

from ...common import linalg_builders as build
from ...common import window_marks
from .int8_isa import Isa
from .int8_pack import pack

PACKED = "versa.int8_packed"  # a conv generic on filters packed for the kernel (`packed_conv`)


def dynamic(op: ir.Operation) -> bool:
    """A named NHWC conv with a dynamic batch, H or W and static filters."""
    if op.name != "linalg.conv_2d_nhwc_hwcf" or len(op.operands) != 3:
        return False
    x, w, init = (ir.RankedTensorType(v.type) for v in op.operands)
    return w.has_static_shape and not (x.has_static_shape and init.has_static_shape)


def packed_conv(op: ir.Operation, weights: np.ndarray, isa: Isa, panel: int) -> None:
    """Replace the conv `op` (i8 x, constant s8 `weights` [KH, KW, C, F] as int64, a zero
    init) by the marked generic on the packed filters (`pack`, `panel` filters per panel)."""
    x, _, init = op.operands
    packed, start = pack(weights, isa, panel, False)
    strides = [int(s) for s in ir.DenseIntElementsAttr(op.attributes["strides"])]
    dilations = [int(d) for d in ir.DenseIntElementsAttr(op.attributes["dilations"])]
    n, oh, ow, f, kh, kw, c = (ir.AffineDimExpr.get(i) for i in range(7))
    g = isa.group
    exprs = [
        [n, oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1], c],
        [
            ir.AffineExpr.get_floor_div(f, panel),
            kh,
            kw,
            ir.AffineExpr.get_floor_div(c, g),
            ir.AffineExpr.get_mod(f, panel) * g + ir.AffineExpr.get_mod(c, g),
        ],
        [ir.AffineConstantExpr.get(0)],  # read by the kernel, not the body (nor sizing f: Fp ≥ F)
        [n, oh, ow, f],
    ]
    maps = [ir.AffineMap.get(7, 0, e) for e in exprs]
    iterators = [build.PARALLEL] * 4 + [build.REDUCTION] * 3

    def body(a: ir.Value, b: ir.Value, _start: ir.Value, acc: ir.Value) -> list[ir.Value]:
        return [arith.addi(acc, arith.muli(arith.extsi(acc.type, a), arith.extsi(acc.type, b)))]

    with ir.InsertionPoint(op), op.location:
        y = build.generic([x, build.dense(packed), build.dense(start)], [init], maps, iterators, body)[0]
    attrs = {"layout": "NHWC", "strides": strides, "dilations": dilations}
    window_marks.mark(y.owner, attrs, weights.shape[:2])
    y.owner.attributes[PACKED] = ir.UnitAttr.get()
    op.results[0].replace_all_uses_with(y)
    op.erase()


def is_tile(op: ir.Operation) -> bool:
    """A static tile of a `packed_conv` generic (its init still the zero fill)."""
    if op.name != "linalg.generic" or PACKED not in op.attributes or len(op.operands) != 4:
        return False
    return all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands)


@dataclass(frozen=True)
class Tile:
    """A tile's kernel operands and shape: x [n, h, w, c], packed filters, start values; the
    window, strides and dilations; `filters` F (unpadded) and `panel` filters per panel."""

    x: ir.Value
    packed: ir.Value
    start: ir.Value
    window: tuple[int, int]
    strides: tuple[int, int]
    dilations: tuple[int, int]
    filters: int
    panel: int


def tile_parts(op: ir.Operation, isa: Isa) -> Tile:
    attrs = window_marks.attrs_of(op)
    x, packed, start, init = op.operands
    panel = ir.RankedTensorType(packed.type).shape[4] // isa.group
    filters = ir.RankedTensorType(init.type).shape[3]
    return Tile(x, packed, start, attrs["kernel"], attrs["strides"], attrs["dilations"], filters, panel)
