"""Reductions: sum, mean, max/min (with indices), argmax, variance/std, logsumexp, vector and
matrix norms."""

import numpy as np

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, Unsupported, rule
from .common import axes, axis, element, promoted, rank, require_float, shape


def _sum_or_mean(build):
    def convert(node: Node, x, dims=None, keepdim=False, dtype=None):
        if node.op.operation.name in ("torch.aten.sum", "torch.aten.mean"):  # (x, dtype): every axis
            dims, keepdim = None, False
        (x,) = promoted(node, x)
        return build(x, axes=axes(dims, x), keepdims=keepdim)

    return convert


rule("torch.aten.sum.dim_IntList", "torch.aten.sum", dynamic=True)(_sum_or_mean(vb.reduce_sum))
rule("torch.aten.mean.dim", "torch.aten.mean", dynamic=True)(_sum_or_mean(vb.reduce_mean))


@rule("torch.aten.amax", "torch.aten.max", dynamic=True)
def amax(node: Node, x, dims=None, keepdim=False):
    return vb.reduce_max(x, axes=axes(dims, x), keepdims=keepdim)


@rule("torch.aten.amin", "torch.aten.min", dynamic=True)
def amin(node: Node, x, dims=None, keepdim=False):
    return vb.neg(vb.reduce_max(vb.neg(x), axes=axes(dims, x), keepdims=keepdim))


@rule("torch.aten.max.dim")
def max_dim(node: Node, x, dim, keepdim=False):
    d = axis(dim, x)
    return [vb.reduce_max(x, axes=[d], keepdims=keepdim), vb.reduce_argmax(x, axis=d, keepdims=keepdim)]


@rule("torch.aten.min.dim")
def min_dim(node: Node, x, dim, keepdim=False):
    d = axis(dim, x)
    negated = vb.neg(x)
    values = vb.neg(vb.reduce_max(negated, axes=[d], keepdims=keepdim))
    return [values, vb.reduce_argmax(negated, axis=d, keepdims=keepdim)]


@rule("torch.aten.argmax")
def argmax(node: Node, x, dim=None, keepdim=False):
    if dim is None:
        flat = vb.reshape(x, [max(1, _count(x))])
        return vb.reshape(vb.reduce_argmax(flat, axis=0), node.out.shape)
    return vb.reduce_argmax(x, axis=axis(dim, x), keepdims=keepdim)


@rule("torch.aten.argmin")
def argmin(node: Node, x, dim=None, keepdim=False):
    return argmax(node, vb.neg(x), dim, keepdim)


def _count(x, dims=None) -> int:
    total = 1
    for d in axes(dims, x) if dims is not None else range(rank(x)):
        total *= shape(x)[d]
    return total


def _variance(node: Node, x, dims, correction, keepdim, mean=None):
    require_float(x, "variance")
    dims = axes(dims, x)
    centered = vb.sub(x, vb.reduce_mean(x, axes=dims, keepdims=True) if mean is None else mean)
    if any(shape(x)[d] is None for d in dims):  # no count to divide by: a mean, uncorrected only
        if correction != 0:
            raise Unsupported("a corrected variance over a dynamic dim")
        return vb.reduce_mean(vb.mul(centered, centered), axes=dims, keepdims=keepdim)
    squares = vb.reduce_sum(vb.mul(centered, centered), axes=dims, keepdims=keepdim)
    count = _count(x, dims) - (1 if correction is None else correction)
    if count <= 0:
        raise Unsupported("variance with no degrees of freedom")
    return vb.div(squares, node.constant(float(count)))


@rule("torch.aten.var.correction", dynamic=True)
def var(node: Node, x, dims=None, correction=None, keepdim=False):
    return _variance(node, x, dims, correction, keepdim)


@rule("torch.aten.var.dim", dynamic=True)
def var_dim(node: Node, x, dims=None, unbiased=True, keepdim=False):
    return _variance(node, x, dims, 1 if unbiased else 0, keepdim)


@rule("torch.aten.var_mean.correction", dynamic=True)
def var_mean(node: Node, x, dims=None, correction=None, keepdim=False):
    """What PyTorch's batch and instance norms decompose into (training; torch.compile): x is
    first centred on its first element along `dims`, as layer_norm's row kernel and the group
    norm rule. An f32 sum of values far from 0 (x + 1e4) rounds at their magnitude, and the
    mean's error is the norm's; on constant values x - x0 is exactly 0 (the rounded mean over
    sqrt(eps) was ~300x its size in the output). Not for a reduction of every element (nor in
    var and std): versa-collapse-reductions splits those across threads only when they read no
    scalar, and the shifted mean's pass made var_mean 1.5x slower."""
    dims = axes(dims, x)
    if len(dims) == rank(x) or any(shape(x)[d] == 0 for d in dims):
        return [_variance(node, x, dims, correction, keepdim), vb.reduce_mean(x, axes=dims, keepdims=keepdim)]
    first = _first(node, x, dims)
    shifted = vb.sub(x, first)
    offset = vb.reduce_mean(shifted, axes=dims, keepdims=True)
    variance = _variance(node, shifted, dims, correction, keepdim, mean=offset)
    mean = vb.add(first, offset)
    if not keepdim:
        mean = vb.reshape(mean, [n for d, n in enumerate(shape(x)) if d not in dims])
    return [variance, mean]


def _first(node: Node, x, dims: list[int]):
    """x's first element along `dims` (kept as dims of 1): a slice, or with dynamic dims (whose
    limits a slice would name) a gather of position 0 per dim."""
    if None not in shape(x):
        limits = [1 if d in dims else n for d, n in enumerate(shape(x))]
        return vb.slice(x, starts=[0] * rank(x), limits=limits)
    zero = node.constant(np.zeros([1], np.int64), "i64")
    for d in dims:
        x = vb.gather(x, zero, axis=d)
    return x


@rule("torch.aten.var_mean.dim", dynamic=True)
def var_mean_dim(node: Node, x, dims=None, unbiased=True, keepdim=False):
    return var_mean(node, x, dims, 1 if unbiased else 0, keepdim)


@rule("torch.aten.std_mean.correction")
def std_mean(node: Node, x, dims=None, correction=None, keepdim=False):
    """var_mean's two results (its shifted mean too), the first under a square root."""
    variance, mean = var_mean(node, x, dims, correction, keepdim)
    return [vb.sqrt(variance), mean]


@rule("torch.aten.std_mean.dim")
def std_mean_dim(node: Node, x, dims=None, unbiased=True, keepdim=False):
    return std_mean(node, x, dims, 1 if unbiased else 0, keepdim)


@rule("torch.aten.std.correction")
def std(node: Node, x, dims=None, correction=None, keepdim=False):
    return vb.sqrt(_variance(node, x, dims, correction, keepdim))


@rule("torch.aten.std.dim")
def std_dim(node: Node, x, dims=None, unbiased=True, keepdim=False):
    return vb.sqrt(_variance(node, x, dims, 1 if unbiased else 0, keepdim))


@rule("torch.aten.logsumexp")
def logsumexp(node: Node, x, dims, keepdim=False):
    dims = axes(dims, x)
    top = vb.reduce_max(x, axes=dims, keepdims=True)
    # torch's: an infinite max is replaced by 0, so a row of -inf gives -inf (not NaN)
    infinite = vb.compare(vb.abs(top), node.constant(float("inf")), predicate="eq")
    top = vb.select(infinite, node.constant(0.0), top)
    total = vb.reduce_sum(vb.exp(vb.sub(x, top)), axes=dims, keepdims=True)
    out = vb.add(vb.log(total), top)
    return out if keepdim else vb.reshape(out, node.out.shape)


@rule("torch.aten.linalg_vector_norm", "torch.aten.norm.ScalarOpt_dim")
def vector_norm(node: Node, x, order=2, dims=None, keepdim=False, dtype=None):
    dims = axes(dims, x)
    if order == 2:
        return vb.sqrt(vb.reduce_sum(vb.mul(x, x), axes=dims, keepdims=keepdim))
    if order == 1:
        return vb.reduce_sum(vb.abs(x), axes=dims, keepdims=keepdim)
    if order == float("inf"):
        return vb.reduce_max(vb.abs(x), axes=dims, keepdims=keepdim)
    raise Unsupported(f"vector norm of order {order}")


@rule("torch.aten.linalg_matrix_norm", "torch.aten.linalg_matrix_norm.str_ord")
def matrix_norm(node: Node, x, order="fro", dims=(-2, -1), keepdim=False, dtype=None):
    """'fro' (the 2-norm of the entries); 1 / -1 (the largest / smallest column sum of |x|),
    inf / -inf (row sums); 'nuc', 2 and -2 need singular values."""
    rows, cols = (axis(d, x) for d in dims)
    if order == "fro":
        return vector_norm(node, x, 2, [rows, cols], keepdim)
    if order not in (1, -1, float("inf"), float("-inf")):
        raise Unsupported(f"matrix norm of order {order!r}")
    inner, outer = (rows, cols) if abs(order) == 1 else (cols, rows)
    sums = vb.reduce_sum(vb.abs(x), axes=[inner], keepdims=True)
    extreme = vb.reduce_max(sums if order > 0 else vb.neg(sums), axes=[outer], keepdims=True)
    extreme = extreme if order > 0 else vb.neg(extreme)
    return extreme if keepdim else vb.reshape(extreme, node.out.shape)


@rule("torch.aten.linalg_norm", "torch.aten.linalg_norm.ord_str")
def linalg_norm(node: Node, x, order=None, dims=None, keepdim=False, dtype=None):
    """torch.linalg.norm: a vector norm over one dim (or all, without an order); a matrix norm
    over two (the order's default: 'fro')."""
    if dims is not None and len(dims) == 2:
        return matrix_norm(node, x, "fro" if order is None else order, dims, keepdim)
    if dims is None and order is not None and rank(x) == 2:
        return matrix_norm(node, x, order, (0, 1), keepdim)
    return vector_norm(node, x, 2 if order is None else order, dims, keepdim)


@rule("torch.aten.cumsum")
def cumsum(node: Node, x, dim, dtype=None):
    """`versa.cumsum` (the op exists; there was no rule, and torch-mlir cannot lower cumsum)."""
    (x,) = promoted(node, x)
    return vb.cumsum(x, axis=axis(dim, x))


@rule("torch.aten.pairwise_distance")
def pairwise_distance(node: Node, a, b, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of a - b + eps over the last dim, as torch: p = inf / -inf the largest /
    smallest |difference|, p = 0 the count of nonzero ones, else (sum |d|^p)^(1/p)."""
    diff = vb.add(vb.sub(a, b), node.constant(eps))
    last = [rank(diff) - 1]
    if p == 2.0:
        return vb.sqrt(vb.reduce_sum(vb.mul(diff, diff), axes=last, keepdims=keepdim))
    size = vb.abs(diff)
    if p == 1.0:
        return vb.reduce_sum(size, axes=last, keepdims=keepdim)
    if p == float("inf"):
        return vb.reduce_max(size, axes=last, keepdims=keepdim)
    if p == float("-inf"):
        return vb.neg(vb.reduce_max(vb.neg(size), axes=last, keepdims=keepdim))
    if p == 0.0:
        nonzero = vb.cast(
            vb.compare(size, node.constant(0.0), predicate="ne"), types.element_type(element(size))
        )
        return vb.reduce_sum(nonzero, axes=last, keepdims=keepdim)
    total = vb.reduce_sum(vb.pow(size, node.constant(float(p))), axes=last, keepdims=keepdim)
    return vb.pow(total, node.constant(1.0 / p))
