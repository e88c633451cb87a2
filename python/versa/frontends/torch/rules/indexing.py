"""Lookups by value or by position without a loop: searchsorted/bucketize (a count of
comparisons), take (a flat gather), index_fill (a mask from the index), masked_scatter (a
cumsum of the mask numbers the source elements, then a gather), put (take's gradient, a
scatter), embedding_renorm (the rows an embedding looks up rescaled to max_norm: a row mask).

    searchsorted(s, v)      #{j : !(s[j] >= v)}   (right: !(s[j] > v)); the negations make
                            a NaN value land past the end, as torch's binary search does
    masked_scatter(x, m, s) select(m, s.flat[cumsum(m.flat) - 1], x)

searchsorted compares every value with every boundary (values · boundaries comparisons):
above COUNT_LIMIT it is refused, and torch runs it.
"""

import math

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import as_tensor, axis, element, rank, shape

I64 = ir.IntegerType.get_signless
COUNT_LIMIT = 1 << 24


def _ones_where(node: Node, mask) -> ir.Value:
    return vb.select(mask, node.constant(1, "i64"), node.constant(0, "i64"))


# ----------------------------------------------------------------------------- searchsorted


def _search(node: Node, boundaries, values, right: bool, out_int32: bool) -> ir.Value:
    """The insertion points of `values` in the last dim of sorted `boundaries` (1-d: shared by
    every value; else one row per row of values)."""
    n = shape(boundaries)[-1]
    scalar = not isinstance(values, ir.Value)
    elem = element(boundaries)
    values = as_tensor(node, values, elem) if scalar else values
    if scalar:
        values = vb.reshape(values, [1])
    if math.prod(shape(values)) * n > COUNT_LIMIT:
        raise Unsupported(f"searchsorted of {math.prod(shape(values))} values in {n} boundaries")
    if element(values) != elem:
        values = vb.cast(values, ir.F32Type.get())
        boundaries = vb.cast(boundaries, ir.F32Type.get())
    if rank(boundaries) > 1 and shape(boundaries)[:-1] != shape(values)[:-1]:
        raise Unsupported("searchsorted with boundaries and values of different leading dims")
    lead = shape(boundaries)[:-1]
    b = vb.reshape(boundaries, [*lead, *[1] * (rank(values) - len(lead)), n])
    v = vb.reshape(values, [*shape(values), 1])
    past = vb.logical_not(vb.compare(b, v, predicate="gt" if right else "ge"))
    count = vb.reduce_sum(_ones_where(node, past), axes=[rank(values)])
    if scalar:
        count = vb.reshape(count, [])
    return vb.cast(count, I64(32)) if out_int32 else count


@rule("torch.aten.searchsorted.Tensor", "torch.aten.searchsorted.Scalar")
def searchsorted(node: Node, boundaries, values, out_int32=False, right=False, side=None, sorter=None):
    if sorter is not None:
        raise Unsupported("searchsorted with a sorter")
    right = side == "right" if side is not None else bool(right)
    return _search(node, boundaries, values, right, bool(out_int32))


@rule("torch.aten.bucketize.Tensor", "torch.aten.bucketize.Scalar")
def bucketize(node: Node, values, boundaries, out_int32=False, right=False):
    """bucketize(v, b, right) is searchsorted(b, v, right) (b is 1-d)."""
    return _search(node, boundaries, values, bool(right), bool(out_int32))


# ----------------------------------------------------------------------------- take, index_fill


def _flat(x) -> ir.Value:
    return vb.reshape(x, [max(1, math.prod(shape(x)))])


def _wrapped(node: Node, index, size: int) -> ir.Value:
    """`index` as i64, a negative one wrapped once (torch's convention)."""
    index = as_tensor(node, index, "i64")
    negative = vb.compare(index, node.constant(0, "i64"), predicate="lt")
    return vb.select(negative, vb.add(index, node.constant(size, "i64")), index)


@rule("torch.aten.take")
def take(node: Node, x, index):
    """x.flatten()[index] (gather wraps a negative index once and clamps, as nn.gather)."""
    return vb.gather(_flat(x), as_tensor(node, index, "i64"), axis=0)


@rule("torch.aten.put")
def put(node: Node, x, index, source, accumulate=False):
    """x.flatten()[index] = source (+= with accumulate): take's gradient."""
    rows = vb.reshape(
        _wrapped(node, index, max(1, math.prod(shape(x)))), [max(1, math.prod(shape(index))), 1]
    )
    out = vb.scatter(_flat(x), rows, _flat(source), reduction="add" if accumulate else "none")
    return vb.reshape(out, list(shape(x)))


def _rows_named(node: Node, index, size: int) -> ir.Value:
    """A [size] mask: true at the positions `index` names (negative ones wrapped once)."""
    wrapped = vb.reshape(_wrapped(node, index, size), [1, max(1, math.prod(shape(index)))])
    hits = vb.compare(vb.iota([size, 1], I64(64), axis=0), wrapped, predicate="eq")
    count = vb.reduce_sum(_ones_where(node, hits), axes=[1])
    return vb.compare(count, node.constant(0, "i64"), predicate="gt")


def _along(mask, x, d: int) -> ir.Value:
    """A [size] mask shaped to broadcast along dim d of x."""
    dims = [1] * rank(x)
    dims[d] = shape(x)[d]
    return vb.broadcast_to(vb.reshape(mask, dims), list(shape(x)))


@rule("torch.aten.index_fill.int_Scalar", "torch.aten.index_fill.int_Tensor")
def index_fill(node: Node, x, dim, index, value):
    if rank(x) == 0:
        raise Unsupported("index_fill of a 0-d tensor")
    d = axis(dim, x)
    mask = _along(_rows_named(node, index, shape(x)[d]), x, d)
    fill = vb.broadcast_to(vb.reshape(as_tensor(node, value, element(x)), [1] * rank(x)), list(shape(x)))
    return vb.select(mask, fill, x)


# ----------------------------------------------------------------------------- masked_scatter


def _positions(node: Node, mask, target: tuple[int, ...]) -> tuple[ir.Value, ir.Value]:
    """The flat mask broadcast to `target`, and each element's rank among the true ones."""
    mask = vb.broadcast_to(mask, list(target)) if shape(mask) != target else mask
    flat = vb.reshape(mask, [max(1, math.prod(target))])
    return flat, vb.sub(vb.cumsum(_ones_where(node, flat), axis=0), node.constant(1, "i64"))


@rule("torch.aten.masked_scatter")
def masked_scatter(node: Node, x, mask, source):
    """Where mask is true, the source's elements in order (torch broadcasts the mask to x)."""
    target = tuple(node.out.shape)
    x = vb.broadcast_to(x, list(target)) if shape(x) != target else x
    flat_mask, position = _positions(node, mask, target)
    picked = vb.gather(_flat(source), vb.max(position, node.constant(0, "i64")), axis=0)
    out = vb.select(flat_mask, picked, _flat(x))
    return vb.reshape(out, list(target))


@rule("torch.aten.masked_scatter_backward")
def masked_scatter_backward(node: Node, grad, mask, sizes):
    """The gradient of the source: the masked elements of grad, in order, then zeros (a scatter
    that adds 0 at position 0 for the unmasked ones)."""
    flat_mask, position = _positions(node, mask, shape(grad))
    total = math.prod(node.out.shape)
    updates = vb.select(flat_mask, _flat(grad), node.constant(0, element(grad)))
    rows = vb.reshape(vb.select(flat_mask, position, node.constant(0, "i64")), [*shape(position), 1])
    zeros = vb.broadcast_to(node.constant(0, element(grad)), [max(1, total)])
    return vb.reshape(vb.scatter(zeros, rows, updates, reduction="add"), list(node.out.shape))


@rule("torch.aten.embedding_renorm")
def embedding_renorm(node: Node, weight, indices, max_norm, norm_type):
    """The weight with each row the indices name scaled by max_norm / (norm + 1e-7) where its
    norm exceeds max_norm (the functional form of embedding_renorm_)."""
    touched = vb.reshape(_rows_named(node, indices, shape(weight)[0]), [shape(weight)[0], 1])
    magnitude = vb.abs(weight)
    if norm_type == 2:
        norm = vb.sqrt(vb.reduce_sum(vb.mul(weight, weight), axes=[1], keepdims=True))
    elif norm_type == 1:
        norm = vb.reduce_sum(magnitude, axes=[1], keepdims=True)
    elif norm_type == float("inf"):
        norm = vb.reduce_max(magnitude, axes=[1], keepdims=True)
    else:
        raise Unsupported(f"embedding_renorm with norm_type={norm_type}")
    limit = node.constant(float(max_norm), element(weight))
    scale = vb.div(limit, vb.add(norm, node.constant(1e-7, element(weight))))
    shrink = vb.logical_and(touched, vb.compare(norm, limit, predicate="gt"))
    return vb.mul(weight, vb.select(shrink, scale, node.constant(1.0, element(weight))))
