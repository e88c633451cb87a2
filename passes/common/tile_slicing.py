"""Which operand dims of a linalg op run along each of its dynamic dims, and static slices of
them: what `versa-static-tiles` needs to run an op on static tiles of its dynamic dims.

A result dim of a linalg op is a parallel loop; an operand runs along it where its indexing map
reads that loop as a plain dim. A loop that an operand reads in any other way (a shifted window,
`d0 + d1`) cannot be cut into independent tiles of that operand, so such ops are not taken.
A dynamic reduction loop (a contraction's K, a row's length) can be cut too: tiles along it
accumulate into the same out tile in order, which is what linalg's loop semantics say.
"""

import re
from dataclasses import dataclass

from versa.mlir import arith, ir, tensor

Pair = tuple[int, int]  # (operand index, dim)
_BATCH_FIRST = ("linalg.conv_2d", "linalg.pooling_", "linalg.depthwise_conv_2d")  # image dim 0
_CONTRACTION_K = {"linalg.matmul": [(0, 1), (1, 0)], "linalg.batch_matmul": [(0, 2), (1, 1)]}


@dataclass(frozen=True)
class Slicing:
    """`per_dim[k]`: the pairs along the result's k-th dynamic dim (the out operand's own
    included); `reduction`: the pairs along its one dynamic reduction loop, if any."""

    per_dim: list[list[Pair]]
    reduction: list[Pair]


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
    return Slicing(per_dim, reduction)


def _reads_loop_index(op: ir.Operation) -> bool:
    """Whether the op's body reads `linalg.index` (a gather's row, an iota)."""
    found = []
    op.walk(lambda inner: found.append(inner.name == "linalg.index") or ir.WalkResult.ADVANCE)
    return any(found)


def _along(op: ir.Operation, r: int) -> list[Pair] | None:
    """The operand dims that run along result dim `r`."""
    maps = _maps(op)
    if maps is not None:
        expr = maps[-1].results[r]
        return _reading(maps, expr.position) if isinstance(expr, ir.AffineDimExpr) else None
    n, name = len(op.operands), op.name
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
