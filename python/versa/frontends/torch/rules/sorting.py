"""topk, sort (argsort, msort) and order statistics (kthvalue, median) along one dim, without a
sort op: two constructions, both exact (values are moved, never computed) and both ordering
ties by position (the lower index first):

    ranks   the stable rank of every element, #(elements before it) counted over all pairs
            ([..., n, n] comparisons), then one scatter of values and positions to their ranks.
            A full stable sort: sort, and topk on short rows (work and memory B·n²).
    passes  topk with small k on long rows: k rounds of max, then the first not-yet-taken
            position holding it (taken positions are masked), B·n per round.

NaN sorts above every number (as torch: first when largest/descending, last otherwise).
torch.topk's CPU kernel leaves the order of equal values unspecified: the values agree with
torch's, the indices are valid and distinct, and ties come in index order.
"""

import functools
import math

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import axis, element, rank, shape, transpose

I64 = ir.IntegerType.get_signless
F32 = ir.F32Type.get
RANK_LIMIT = 1 << 22  # B·n² comparisons above which the rank construction is refused
MAX_PASSES = 64


def _is_float(x) -> bool:
    return element(x) in ("f16", "bf16", "f32", "f64")


def _nan(x):
    """x != x (true at NaN), or None for integers."""
    return vb.compare(x, x, predicate="ne") if _is_float(x) else None


def _or(*masks):
    return functools.reduce(vb.logical_or, [m for m in masks if m is not None])


def _and(*masks):
    return functools.reduce(vb.logical_and, [m for m in masks if m is not None])


def _last(x, d: int):
    """x with dim d moved last, and the permutation that undoes it."""
    perm = [a for a in range(rank(x)) if a != d] + [d]
    back = [perm.index(a) for a in range(rank(x))]
    return (x, None) if d == rank(x) - 1 else (transpose(x, perm), back)


def _by_rank(node: Node, x, d: int, descending: bool, keep: int):
    """The first `keep` of x sorted along d (stable), and their positions."""
    x, back = _last(x, d)
    lead, n = list(shape(x)[:-1]), shape(x)[-1]
    batch = math.prod(lead)
    flat = vb.reshape(x, [batch, n])
    a, b = vb.reshape(flat, [batch, n, 1]), vb.reshape(flat, [batch, 1, n])  # element i, element j
    nan_a, nan_b = _nan(a), _nan(b)
    floats = nan_a is not None
    if descending:  # j before i: b > a, or b NaN and a not
        ahead = _or(vb.compare(b, a, predicate="gt"), _and(nan_b, vb.logical_not(nan_a)) if floats else None)
    else:  # b < a, or a NaN and b not
        ahead = _or(vb.compare(b, a, predicate="lt"), _and(nan_a, vb.logical_not(nan_b)) if floats else None)
    same = _or(vb.compare(b, a, predicate="eq"), _and(nan_a, nan_b) if floats else None)
    earlier = vb.compare(vb.iota([n, n], I64(64), axis=1), vb.iota([n, n], I64(64), axis=0), predicate="lt")
    before = _or(ahead, _and(same, earlier))
    ones = vb.select(before, node.constant(1.0, "f32"), node.constant(0.0, "f32"))
    ranks = vb.cast(vb.reduce_sum(ones, axes=[2]), I64(64))  # exact: n < 2^24
    rows = vb.concat([vb.iota([batch, n, 1], I64(64), axis=0), vb.reshape(ranks, [batch, n, 1])], axis=2)
    zeros = vb.broadcast_to(node.constant(0, element(x)), [batch, n])
    values = vb.scatter(zeros, rows, flat)
    positions = vb.scatter(
        vb.broadcast_to(node.constant(0, "i64"), [batch, n]), rows, vb.iota([batch, n], I64(64), axis=1)
    )
    out = []
    for t in (values, positions):
        if keep < n:
            t = vb.slice(t, starts=[0, 0], limits=[batch, keep])
        t = vb.reshape(t, [*lead, keep])
        out.append(t if back is None else vb.transpose(t, perm=back))
    return out


def _by_passes(node: Node, x, d: int, largest: bool, k: int):
    """k rounds: the best value not yet taken, then the first untaken position holding it."""
    if not _is_float(x):
        raise Unsupported(f"topk of {element(x)} on long rows")
    nan = _nan(x)
    ninf = node.constant(-np.inf, element(x))
    key = x if largest else vb.neg(x)
    here = vb.iota(list(shape(x)), I64(64), axis=d)
    values, indices, taken = [], [], None
    for _ in range(k):
        free = vb.logical_not(taken) if taken is not None else None
        if largest:  # NaN wins the max (maximumf propagates it)
            best = vb.reduce_max(
                key if taken is None else vb.select(taken, ninf, key), axes=[d], keepdims=True
            )
            match = _or(vb.compare(x, best, predicate="eq"), _and(nan, _nan(best)))
            value = best
        else:  # NaN comes last: only when no number is left
            best = vb.reduce_max(vb.select(_or(taken, nan), ninf, key), axes=[d], keepdims=True)
            numbers = _and(free, vb.logical_not(nan))
            count = vb.reduce_sum(
                vb.select(numbers, node.constant(1.0, "f32"), node.constant(0.0, "f32")),
                axes=[d],
                keepdims=True,
            )
            left = vb.compare(count, node.constant(0.0, "f32"), predicate="gt")
            match = _or(_and(numbers, vb.compare(key, best, predicate="eq")), _and(nan, vb.logical_not(left)))
            value = vb.select(left, vb.neg(best), node.constant(np.nan, element(x)))
        hit = _and(match, free)
        first = vb.reduce_argmax(
            vb.select(hit, node.constant(1.0, "f32"), node.constant(0.0, "f32")), axis=d, keepdims=True
        )
        chosen = vb.compare(here, first, predicate="eq")
        taken = chosen if taken is None else vb.logical_or(taken, chosen)
        values.append(value)
        indices.append(first)
    return [vb.concat(values, axis=d), vb.concat(indices, axis=d)]


@rule("torch.aten.topk")
def topk(node: Node, x, k, dim=-1, largest=True, sorted=True):
    if rank(x) == 0:
        return [x, node.constant(0, "i64")]
    d = axis(dim, x)
    n = shape(x)[d]
    comparisons = math.prod(shape(x)) * n
    if (k <= min(16, n) and _is_float(x)) or comparisons > RANK_LIMIT:
        if k > MAX_PASSES:
            raise Unsupported(f"topk with k={k} of {n} (too many for passes, too long to rank)")
        return _by_passes(node, x, d, bool(largest), k)
    return _by_rank(node, x, d, bool(largest), k)


@rule("torch.aten.sort", "torch.aten.sort.stable")
def sort(node: Node, x, *args):
    """sort(x, dim, descending) or sort.stable(x, stable, dim, descending): stable either way."""
    dim, descending = args[-2:]
    if rank(x) == 0:
        return [x, node.constant(0, "i64")]
    d = axis(dim, x)
    if math.prod(shape(x)) * shape(x)[d] > RANK_LIMIT:
        raise Unsupported(f"sort of {shape(x)[d]} elements per row (the rank construction is B·n²)")
    return _by_rank(node, x, d, bool(descending), shape(x)[d])


@rule("torch.aten.argsort", "torch.aten.argsort.stable")
def argsort(node: Node, x, *args):
    return sort(node, x, *args)[1]


@rule("torch.aten.msort")
def msort(node: Node, x):
    return sort(node, x, 0, False)[0]


def _order_statistic(node: Node, x, d: int, position: int, keepdim: bool, nan_wins: bool):
    """The element at `position` of x sorted ascending along d (NaN last) and its index; with
    `nan_wins` a row holding NaN gives NaN and its first NaN's index (torch's median)."""
    if math.prod(shape(x)) * shape(x)[d] > RANK_LIMIT:
        raise Unsupported(f"an order statistic of {shape(x)[d]} elements per row (B·n² comparisons)")
    values, indices = _by_rank(node, x, d, False, shape(x)[d])
    starts, limits = [0] * rank(x), list(shape(x))
    starts[d], limits[d] = position, position + 1
    values, indices = (vb.slice(t, starts=starts, limits=limits) for t in (values, indices))
    nan = _nan(x)
    if nan_wins and nan is not None:
        flags = vb.select(nan, node.constant(1.0, "f32"), node.constant(0.0, "f32"))
        first = vb.reduce_argmax(flags, axis=d, keepdims=True)
        any_nan = vb.compare(
            vb.reduce_max(flags, axes=[d], keepdims=True), node.constant(0.0, "f32"), predicate="gt"
        )
        values = vb.select(any_nan, node.constant(np.nan, element(x)), values)
        indices = vb.select(any_nan, first, indices)
    if not keepdim:
        dims = [n for a, n in enumerate(shape(x)) if a != d]
        values, indices = vb.reshape(values, dims), vb.reshape(indices, dims)
    return [values, indices]


@rule("torch.aten.kthvalue")
def kthvalue(node: Node, x, k, dim=-1, keepdim=False):
    """Ties: the values are torch's; which of equal elements' index torch returns is unspecified."""
    if rank(x) == 0:
        return [x, node.constant(0, "i64")]
    return _order_statistic(node, x, axis(dim, x), k - 1, bool(keepdim), nan_wins=False)


@rule("torch.aten.median.dim")
def median_dim(node: Node, x, dim, keepdim=False):
    """The lower median; NaN if the row has one (torch propagates it)."""
    if rank(x) == 0:
        return [x, node.constant(0, "i64")]
    d = axis(dim, x)
    return _order_statistic(node, x, d, (shape(x)[d] - 1) // 2, bool(keepdim), nan_wins=True)


@rule("torch.aten.median")
def median(node: Node, x):
    flat = vb.reshape(x, [max(1, math.prod(shape(x)))])
    value = _order_statistic(node, flat, 0, (shape(flat)[0] - 1) // 2, False, nan_wins=True)[0]
    return value
