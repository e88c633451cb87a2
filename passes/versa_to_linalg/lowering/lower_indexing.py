"""convert-versa-to-linalg, continued: gather, iota, reduce_argmax, cumsum (conv_transpose2d:
`lower_conv_transpose`; scatter: `lower_scatter`).

`PATTERNS` here joins the pattern table of `convert_versa_to_linalg`. The elementwise new ops
(compare, select, and, or, not) need no pattern of their own: they are entries of the scalar
table (`scalar_emitters.SCALAR`), so they also work inside `versa.fused` groups.

    %e = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>

becomes a parallel `linalg.generic` over the result that reads the index, wraps and clamps it,
and reads the table with `tensor.extract` (versa-vectorize reads a row taken whole as vectors):

    linalg.generic outs(%empty : tensor<3x4xf32>) {
    ^bb0(%out: f32):
      %id = tensor.extract %i[linalg.index 0] : tensor<3xi64>
      %k = arith.index_cast %id : i64 to index     // then + 10 if < 0, then clamp to [0, 9]
      %v = tensor.extract %t[%k, linalg.index 1] : tensor<10x4xf32>
      linalg.yield %v : f32
    }

Scans (cumsum) are generics with two outputs whose reduced loop is the innermost one: the
running value is a reduction output (it omits the reduced dim) and the result is read out at
every step. Nothing reorders such a loop: versa-vectorize takes only all-parallel generics, the
codegen strategies and versa-gpu-reduce only single-output ones, and
convert-linalg-to-(parallel-)loops keeps the reduced loop sequential and in order. argmax is
two one-output reductions instead (a maximum, then the first index holding it): vector code.
"""

from typing import Any

from versa.dialects import versa as dialect
from versa.mlir import arith, ir, linalg, tensor

from ...common import extents
from ...common import linalg_builders as build
from ...common.matching import result_of, versa_attrs
from ...common.rewrite import Pattern
from . import lower_conv_transpose, lower_scatter

PARALLEL, REDUCTION = build.PARALLEL, build.REDUCTION


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _loop(dim: int) -> ir.Value:
    """`linalg.index dim`: the current iteration along loop `dim`."""
    return linalg.IndexOp(dim).result


def _reduced_last(rank: int, axis: int) -> tuple[ir.AffineMap, ir.AffineMap]:
    """Loops over x's dims with `axis` innermost (on GPUs the parallel loops then enclose the
    serial one): the map of x (and of any tensor of x's shape), and that of x without `axis`."""
    order = [d for d in range(rank) if d != axis] + [axis]  # the x dim of each loop
    full = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(order.index(d)) for d in range(rank)])
    return full, build.dims_map(rank, range(rank - 1))


# ----------------------------------------------------------------------------- gather, iota


def lower_gather(op: ir.OpView, rewriter: Any) -> bool:
    """gather(x, i) → generic over the result: x[..., clamp(wrap(i[...])), ...] via tensor.extract.

    A negative index wraps once (i + n); an index still outside [0, n) is clamped into it, so
    the loads stay in bounds whatever the indices hold (the reference clamps the same way)."""
    (types, element), (x, indices) = result_of(op), op.operands
    source = build.shape_of(x)
    axis, count = versa_attrs(op)["axis"] % len(source), len(build.shape_of(indices))
    n = extents.dim(x, axis)  # the table's rows: an index value when dynamic
    # result dims: x's before the axis, the indices', x's after it
    sources = [*((x, d) for d in range(axis)), *((indices, d) for d in range(count))]
    sources += [(x, d) for d in range(axis + 1, len(source))]
    shape = extents.sized(
        types, {r: extents.dim(v, d) for r, (v, d) in enumerate(sources) if extents.unknown(types[r])}
    )

    def body(_: ir.Value) -> list[ir.Value]:
        # The index is read in the body, at loop-invariant positions along the innermost loop,
        # so that the vectorizer sees a uniform row and reads a contiguous table row as one
        # vector (read as an input, it would be a per-lane gather).
        i = tensor.extract(indices, [_loop(d) for d in range(axis, axis + count)])
        k = arith.index_cast(ir.IndexType.get(), i)  # sign-extends an i32
        negative = arith.cmpi(arith.CmpIPredicate.slt, k, _index(0))
        k = arith.select(negative, arith.addi(k, extents.index(n)), k)
        k = arith.minsi(arith.maxsi(k, _index(0)), extents.index(extents.add(n, -1)))
        before = [_loop(d) for d in range(axis)]
        after = [_loop(axis + count + d) for d in range(len(source) - axis - 1)]
        return [tensor.extract(x, [*before, k, *after])]

    maps = [ir.AffineMap.get_identity(len(shape))]
    outputs = [build.empty(shape, element)]
    rewriter.replace_op(op, build.generic([], outputs, maps, [PARALLEL] * len(shape), body))
    return True


def index_to(i: ir.Value, element: ir.Type) -> ir.Value:
    """An index as `element`: integers truncate (as NumPy's astype), floats round."""
    if build.is_float(element):
        return arith.sitofp(element, arith.index_cast(ir.IntegerType.get_signless(64), i))
    return arith.index_cast(element, i)


def lower_iota(op: ir.OpView, rewriter: Any) -> bool:
    """iota → generic with no inputs yielding `linalg.index axis` converted to the element type;
    a dynamic result dim is `tensor.dim` of the `like` operand's dim `dims` names."""
    (types, element), attrs = result_of(op), versa_attrs(op)
    dims = attrs["dims"] or []
    known = {r: extents.dim(op.operands[0], d) for r, d in enumerate(dims) if extents.unknown(types[r])}
    shape = extents.sized(types, known)
    axis = attrs["axis"] % len(shape)
    maps, iterators = [ir.AffineMap.get_identity(len(shape))], [PARALLEL] * len(shape)
    outputs = [build.empty(shape, element)]
    ramp = build.generic([], outputs, maps, iterators, lambda _: [index_to(_loop(axis), element)])
    rewriter.replace_op(op, ramp)
    return True


# ----------------------------------------------------------------------------- scans


def lower_argmax(op: ir.OpView, rewriter: Any) -> bool:
    """reduce_argmax → two reductions over the axis (innermost): the row maximum m, then the
    least index i with x[i] == m (or, when m is NaN, with x[i] NaN).

    That is np.argmax's answer: the first of equal maxima, NaN counting as the maximum
    (`maximumf` propagates it), -inf rows give 0. Each stage is a one-output reduction that
    the row-reduction strategy vectorizes and threads (`maximumf`/`maxsi`, then `minsi` over
    `select(x == m, index, n)`); one generic with two outputs (running maximum and its index)
    could be neither."""
    attrs, (_, i64), x = versa_attrs(op), result_of(op), op.operands[0]
    source, element = extents.of(x), build.element_of(x)
    rank, axis = len(source), attrs["axis"] % len(source)
    kept = tuple(d for i, d in enumerate(source) if i != axis)
    full, reduced = _reduced_last(rank, axis)
    iterators = [PARALLEL] * (rank - 1) + [REDUCTION]
    is_float = build.is_float(element)

    def maximum(v: ir.Value, best: ir.Value) -> list[ir.Value]:
        return [arith.maximumf(v, best) if is_float else arith.maxsi(v, best)]

    init = build.filled(kept, element, build.lowest(element))
    (m,) = build.generic([x], [init], [full, reduced], iterators, maximum)
    size = source[axis]
    n = arith.constant(i64, size) if isinstance(size, int) else arith.index_cast(i64, size)

    def first(v: ir.Value, best: ir.Value, at: ir.Value) -> list[ir.Value]:
        if is_float:
            equal = arith.cmpf(arith.CmpFPredicate.OEQ, v, best)
            both_nan = arith.andi(
                arith.cmpf(arith.CmpFPredicate.UNO, v, v), arith.cmpf(arith.CmpFPredicate.UNO, best, best)
            )
            equal = arith.ori(equal, both_nan)
        else:
            equal = arith.cmpi(arith.CmpIPredicate.eq, v, best)
        here = arith.select(equal, arith.index_cast(i64, _loop(rank - 1)), n)
        return [arith.minsi(here, at)]

    outputs = [build.filled(kept, i64, n)]
    (index,) = build.generic([x, m], outputs, [full, reduced, reduced], iterators, first)
    if attrs["keepdims"]:
        ones = [1 if d == axis else size for d, size in enumerate(source)]
        index = build.expand(index, ones, build.keepdims_groups(rank, [axis]))
    rewriter.replace_op(op, [index])
    return True


def lower_cumsum(op: ir.OpView, rewriter: Any) -> bool:
    """cumsum → generic with outputs (running sum, result), the axis innermost: each step adds
    x to the running sum and stores it. f16/bf16 accumulate in f32 and round each output."""
    (_, element), x = result_of(op), op.operands[0]
    shape = extents.of(x)
    rank, axis = len(shape), versa_attrs(op)["axis"] % len(shape)
    kept = tuple(d for i, d in enumerate(shape) if i != axis)
    accumulator = ir.F32Type.get() if build.is_float(element) else element
    full, reduced = _reduced_last(rank, axis)

    def body(v: ir.Value, total: ir.Value, _: ir.Value) -> list[ir.Value]:
        add = arith.addf if build.is_float(element) else arith.addi
        total = add(total, build.convert(v, accumulator))
        return [total, build.convert(total, element)]

    outputs = [build.filled(kept, accumulator, 0.0), build.empty(shape, element)]
    iterators = [PARALLEL] * (rank - 1) + [REDUCTION]
    _, y = build.generic([x], outputs, [full, reduced, full], iterators, body)
    rewriter.replace_op(op, [y])
    return True


PATTERNS: list[tuple[type[dialect.VersaOp], Pattern]] = [
    (dialect.GatherOp, lower_gather),
    (dialect.IotaOp, lower_iota),
    (dialect.ReduceArgmaxOp, lower_argmax),
    (dialect.CumsumOp, lower_cumsum),
    *lower_conv_transpose.PATTERNS,  # sub-pixel convs, in their own module
    *lower_scatter.PATTERNS,  # scatter: a loop over index rows, in its own module
]
