"""Which operand dims of a linalg op run along each of its dynamic dims, and static slices of
them: what `versa-static-tiles` needs to run an op on static tiles of its dynamic dims.

A result dim of a linalg op is a parallel loop; an operand runs along it where its indexing map
reads that loop as a plain dim. A loop that an operand reads in any other way (a shifted window,
`d0 + d1`) cannot be cut into independent tiles of that operand, so such ops are not taken.
A dynamic reduction loop (a contraction's K, a row's length) can be cut too: tiles along it
accumulate into the same out tile in order, which is what linalg's loop semantics say.
The spatial dims of the named convolutions and pools are the one shifted read taken: output
rows [o, o + T) read input rows [o·s, o·s + (T - 1)·s + span) (`Slicing.windows`, `windowed`),
a static slice of the (already padded) input for a static tile.
"""

import re
from dataclasses import dataclass, field

from versa.mlir import arith, ir, tensor

from . import window_marks

Pair = tuple[int, int]  # (operand index, dim)
_BATCH_FIRST = ("linalg.conv_2d", "linalg.pooling_", "linalg.depthwise_conv_2d")  # image dim 0
_CONTRACTION_K = {"linalg.matmul": [(0, 1), (1, 0)], "linalg.batch_matmul": [(0, 2), (1, 1)]}


@dataclass(frozen=True)
class Slicing:
    """`per_dim[k]`: the pairs along the result's k-th dynamic dim (the out operand's own
    included); `reduction`: the pairs along its one dynamic reduction loop, if any."""

    per_dim: list[list[Pair]]
    reduction: list[Pair]
    windows: dict[Pair, tuple[int, int]] = field(default_factory=dict)  # input pair: (stride, span)


# named window ops: (input's spatial dims, the filter's (or pool window's) KH and KW dims)
_WINDOWED = {
    "linalg.conv_2d_nchw_fchw": ((2, 3), (2, 3)),
    "linalg.conv_2d_nhwc_hwcf": ((1, 2), (0, 1)),
    "linalg.depthwise_conv_2d_nchw_chw": ((2, 3), (1, 2)),
    "linalg.depthwise_conv_2d_nhwc_hwc": ((1, 2), (0, 1)),
    "linalg.pooling_nchw_max": ((2, 3), (0, 1)),
    "linalg.pooling_nchw_sum": ((2, 3), (0, 1)),
    "linalg.pooling_nhwc_max": ((1, 2), (0, 1)),
    "linalg.pooling_nhwc_sum": ((1, 2), (0, 1)),
}


def spatial_windows(op: ir.Operation) -> dict[int, tuple[int, int]]:
    """A named conv's or pool's spatial dims (the same in its input and result): dim -> (stride,
    span = dilation·(K - 1) + 1); empty for any other op. A generic marked as a window op
    (`window_marks`: a grouped conv) has them too."""
    if op.name == "linalg.generic":
        return window_marks.spatial(op)
    if op.name not in _WINDOWED or len(op.operands) != 3:
        return {}
    spatial, taps = _WINDOWED[op.name]
    kernel = dims(op.operands[1].type)
    strides = [int(v) for v in ir.DenseIntElementsAttr(op.attributes["strides"])]
    dilations = [int(v) for v in ir.DenseIntElementsAttr(op.attributes["dilations"])]
    return {d: (strides[i], dilations[i] * (kernel[taps[i]] - 1) + 1) for i, d in enumerate(spatial)}


def windowed(plan: Slicing, pair: Pair, tile: tuple) -> tuple:
    """`tile` (offset, size, valid rows) of an output dim as the input rows its windows read."""
    if pair not in plan.windows:
        return tile
    (stride, span), (offset, size, rows) = plan.windows[pair], tile

    def scaled(v):  # v·s, the first row read
        if isinstance(v, int):
            return v * stride
        return v if stride == 1 else arith.muli(v, _index(stride))

    def reach(v):  # (v - 1)·s + span: the rows v outputs read
        if isinstance(v, int):
            return (v - 1) * stride + span
        return arith.addi(scaled(v), _index(span - stride))

    return scaled(offset), reach(size), None if rows is None else reach(rows)


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def dims(t: ir.Type) -> list[int | None]:
    return [None if ir.ShapedType.is_dynamic_size(d) else d for d in ir.RankedTensorType(t).shape]


def slicing(op: ir.Operation) -> Slicing | None:
    """How `op` is cut into static tiles; None where it has no dynamic dim or cannot be cut."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return None
    if not all(isinstance(v.type, ir.RankedTensorType) for v in op.operands):
        return None
    if _reads_loop_index(op):  # a tile's body would see its own loop index, not the op's
        return None
    if any(0 in dims(v.type) for v in (*op.operands, op.results[0])):
        return None  # no elements: nothing to tile (and no offset into a dim of size 0 is valid)
    out = dims(op.results[0].type)
    per_dim = [_along(op, r) for r, d in enumerate(out) if d is None]
    if any(p is None for p in per_dim):
        return None
    covered = {pair for pairs in per_dim for pair in pairs}
    left = {
        (i, k)
        for i, v in enumerate(op.operands)
        for k, d in enumerate(dims(v.type))
        if d is None and (i, k) not in covered
    }
    reduction = _reduction(op, left) if left else []
    if reduction is None or not (per_dim or reduction):
        return None
    spatial = spatial_windows(op)
    windows = {(0, r): spatial[r] for r, d in enumerate(out) if d is None and r in spatial}
    return Slicing(per_dim, reduction, windows)


def _reads_loop_index(op: ir.Operation) -> bool:
    """Whether the op's body reads `linalg.index` (a gather's row, an iota)."""
    found = []
    op.walk(lambda inner: found.append(inner.name == "linalg.index") or ir.WalkResult.ADVANCE)
    return any(found)


def _along(op: ir.Operation, r: int) -> list[Pair] | None:
    """The operand dims that run along result dim `r`."""
    n, maps = len(op.operands), _maps(op)
    if r in spatial_windows(op):  # the input's rows read by the tile's windows (`windowed`)
        return [(0, r), (n - 1, r)]
    if maps is not None:
        expr = maps[-1].results[r]
        return _reading(maps, expr.position) if isinstance(expr, ir.AffineDimExpr) else None
    name = op.name
    if name == "linalg.matmul":
        return [(0, 0), (n - 1, 0)] if r == 0 else [(1, 1), (n - 1, 1)]
    if name == "linalg.batch_matmul":
        return [[(0, 0), (1, 0)], [(0, 1)], [(1, 2)]][r] + [(n - 1, r)]
    if name == "linalg.fill":
        return [(n - 1, r)]
    if name.startswith(_BATCH_FIRST) and r == 0:
        return [(0, 0), (n - 1, 0)]
    return None


def _reduction(op: ir.Operation, left: set[Pair]) -> list[Pair] | None:
    """The pairs of the one reduction loop that covers every dynamic dim in `left`, else None."""
    maps = _maps(op)
    if maps is not None:
        iterators = (
            [str(a) for a in op.attributes["iterator_types"]] if "iterator_types" in op.attributes else []
        )
        in_out = {e.position for e in maps[-1].results if isinstance(e, ir.AffineDimExpr)}
        for loop in range(maps[0].n_dims):
            reduces = ("reduction" in iterators[loop]) if iterators else loop not in in_out
            pairs = _reading(maps, loop) if reduces else None
            if pairs and left <= set(pairs) and all(i < len(op.operands) - 1 for i, _ in pairs):
                return pairs
        return None
    pairs = _CONTRACTION_K.get(op.name)
    return pairs if pairs is not None and left <= set(pairs) else None


def _maps(op: ir.Operation) -> list[ir.AffineMap] | None:
    if "indexing_maps" not in op.attributes:  # named ops that do not spell their maps
        return None
    return [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]


def _reading(maps: list[ir.AffineMap], loop: int) -> list[Pair] | None:
    """Where every operand reads `loop` as a plain dim; None if one reads it otherwise."""
    pairs = []
    for i, m in enumerate(maps):
        for k, e in enumerate(m.results):
            if isinstance(e, ir.AffineDimExpr) and e.position == loop:
                pairs.append((i, k))
            elif re.search(rf"\bd{loop}\b", str(e)):  # the bindings lack isFunctionOfDim
                return None  # a shifted or strided read
    return pairs


# ----------------------------------------------------------------------------- static slices


def window(v: ir.Value, i: int, where: dict) -> tuple[list, list[int], list, list[int]]:
    """Operand `i`'s slice at `where` ((operand, dim) -> (offset, size), ints or index values)
    as `tensor` slice ops take it: offset values and static offsets, size values and static
    sizes (MLIR's sentinel where a value gives it). A dynamic dim not in `where` stays whole."""
    offsets, static_offsets, sizes, static_sizes = [], [], [], []
    for k, d in enumerate(dims(v.type)):
        offset, size = where.get((i, k), (0, d))
        if isinstance(offset, ir.Value):
            offsets.append(offset)
            offset = ir.ShapedType.get_dynamic_stride_or_offset()
        if size is None:  # kept whole
            size = tensor.dim(v, arith.constant(ir.IndexType.get(), k))
        if isinstance(size, ir.Value):
            sizes.append(size)
            size = ir.ShapedType.get_dynamic_size()
        static_offsets.append(offset)
        static_sizes.append(size)
    return offsets, static_offsets, sizes, static_sizes


def extract(v: ir.Value, i: int, where: dict) -> ir.Value:
    """Operand `i` (`v`) sliced at `where`; `v` itself where nothing of it is cut."""
    offsets, static_offsets, sizes, static_sizes = window(v, i, where)
    if not offsets and not sizes and static_sizes == dims(v.type) and not any(static_offsets):
        return v  # the whole tensor
    result = ir.RankedTensorType.get(static_sizes, ir.RankedTensorType(v.type).element_type)
    ones = [1] * len(static_sizes)
    return tensor.extract_slice(result, v, offsets, sizes, [], static_offsets, static_sizes, ones)


def insert(value: ir.Value, dest: ir.Value, i: int, where: dict) -> ir.Value:
    """`value` written into `dest` (operand `i`'s whole tensor) at `where`."""
    offsets, static_offsets, sizes, static_sizes = window(dest, i, where)
    ones = [1] * len(static_sizes)
    return tensor.insert_slice(value, dest, offsets, sizes, [], static_offsets, static_sizes, ones)
