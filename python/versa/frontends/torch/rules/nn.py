"""Layers: linear and matmul, softmax, attention, embedding, gather, prelu (normalisation: norm.py).

Biases become a broadcast `versa.add` after the contraction (versa-fuse makes it an epilogue).
Scaled-dot-product attention is written in versa ops (matmul, scale, mask, softmax, matmul),
never torch-mlir's `tm_tensor.attention`, which our pipeline cannot bufferize.
"""

import math

import numpy as np

from versa.dialects import builders as vb

from .. import types
from ..convert import Node, Unsupported, rule
from . import runtime_sizes
from .common import as_tensor, axis, element, rank, require_float, shape, transpose


def _swap_last(x):
    perm = list(range(rank(x)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


@rule("torch.aten.linear", dynamic=True)
def linear(node: Node, x, weight, bias=None):
    if rank(weight) != 2:
        raise Unsupported("linear with a 1-d weight")
    out = vb.matmul(x, transpose(weight, [1, 0]))
    return out if bias is None else vb.add(out, bias)


@rule("torch.aten.matmul", "torch.aten.mm", "torch.aten.bmm", dynamic=True)
def matmul(node: Node, a, b):
    require_float(a, "matmul")
    if rank(a) == 1 or rank(b) == 1:  # vector operands: make them matrices, then drop the dim
        a2 = vb.reshape(a, [1, shape(a)[0]]) if rank(a) == 1 else a
        b2 = vb.reshape(b, [shape(b)[0], 1]) if rank(b) == 1 else b
        return vb.reshape(vb.matmul(a2, b2), node.out.shape)
    return vb.matmul(a, b)


@rule("torch.aten.addmm", dynamic=True)
def addmm(node: Node, bias, a, b, beta=1, alpha=1):
    product = vb.matmul(a, b)
    if alpha != 1:
        product = vb.mul(product, node.constant(alpha))
    return vb.add(product, bias if beta == 1 else vb.mul(bias, node.constant(beta)))


@rule("torch.aten.baddbmm", dynamic=True)
def baddbmm(node: Node, bias, a, b, beta=1, alpha=1):
    return addmm(node, bias, a, b, beta, alpha)


# ----------------------------------------------------------------------------- softmax


@rule("torch.aten.softmax.int", "torch.aten._softmax", dynamic=True)
def softmax(node: Node, x, dim, dtype_or_half=None):
    require_float(x, "softmax")
    return vb.softmax(x, axis=axis(dim, x))


@rule("torch.aten._safe_softmax", dynamic=True)
def safe_softmax(node: Node, x, dim, dtype=None):
    """softmax, but 0 (not NaN) on rows that are entirely -inf (fully masked attention rows)."""
    d = axis(dim, x)
    empty = vb.compare(vb.reduce_max(x, axes=[d], keepdims=True), node.constant(-np.inf), predicate="eq")
    return vb.select(empty, node.constant(0.0), vb.softmax(x, axis=d))


@rule("torch.aten.log_softmax.int", "torch.aten._log_softmax", dynamic=True)
def log_softmax(node: Node, x, dim, dtype_or_half=None):
    d = axis(dim, x)
    shifted = vb.sub(x, vb.reduce_max(x, axes=[d], keepdims=True))
    return vb.sub(shifted, vb.log(vb.reduce_sum(vb.exp(shifted), axes=[d], keepdims=True)))


# ----------------------------------------------------------------------------- attention, embedding


@rule("torch.aten.scaled_dot_product_attention", dynamic=True)
def attention(node: Node, q, k, v, mask=None, dropout=0.0, is_causal=False, scale=None, enable_gqa=False):
    if dropout:
        raise Unsupported("attention dropout")
    read = [shape(q)[-1]] if scale is None else []  # the dims the rule computes with
    read += [shape(q)[-2], shape(k)[-2]] if is_causal else []
    read += [shape(q)[-3], shape(k)[-3]] if enable_gqa else []
    if None in read:
        raise Unsupported("attention with a dynamic head size, causal mask or head groups")
    if enable_gqa and shape(q)[-3] != shape(k)[-3]:  # K/V heads repeated (repeat_interleave)
        k, v = _repeat_heads(k, shape(q)[-3] // shape(k)[-3]), _repeat_heads(v, shape(q)[-3] // shape(k)[-3])
    length, source = shape(q)[-2], shape(k)[-2]
    scale = 1.0 / math.sqrt(shape(q)[-1]) if scale is None else scale
    scores = vb.mul(vb.matmul(q, _swap_last(k)), node.constant(scale))
    if is_causal:
        keep = np.tri(length, source, dtype=bool)
        scores = vb.select(node.constant(keep, "i1"), scores, node.constant(-np.inf))
    if mask is not None:
        if str(mask.type.element_type) == "i1":
            scores = vb.select(mask, scores, node.constant(-np.inf))
        else:
            scores = vb.add(scores, as_tensor(node, mask, node.out.element))
    return vb.matmul(vb.softmax(scores, axis=rank(scores) - 1), v)


def _repeat_heads(x, repeat: int):
    dims = shape(x)
    grown = vb.broadcast_to(vb.reshape(x, [*dims[:-2], 1, *dims[-2:]]), [*dims[:-2], repeat, *dims[-2:]])
    return vb.reshape(grown, [*dims[:-3], dims[-3] * repeat, *dims[-2:]])


@rule("torch.aten._weight_norm")
def weight_norm(node: Node, v, g, dim=0):
    """nn.utils(.parametrizations).weight_norm: v · g / ‖v‖, the norm over every dim but `dim`
    (dim=-1: over all of v), as torch.export keeps it from parametrizations.weight_norm."""
    require_float(v, "weight_norm")
    dims = range(rank(v)) if dim == -1 else [a for a in range(rank(v)) if a != axis(dim, v)]
    norm = vb.sqrt(vb.reduce_sum(vb.mul(v, v), axes=list(dims), keepdims=True))
    return vb.mul(v, vb.div(g, norm))


@rule("torch.aten._weight_norm_interface_backward")
def weight_norm_backward(node: Node, grad, v, g, norms, dim=0):
    """w = v · g / n with n = ‖v‖ over every dim but `dim` (`norms`, saved, shaped as g):
    dL/dg = Σ(grad · v) / n, dL/dv = (g / n) · (grad − v · dL/dg / n)."""
    require_float(v, "weight_norm backward")
    dims = [a for a in range(rank(v)) if a != axis(dim, v)] if rank(g) > 0 else list(range(rank(v)))
    grad_g = vb.div(vb.reduce_sum(vb.mul(grad, v), axes=dims, keepdims=True), norms)
    grad_v = vb.mul(vb.div(g, norms), vb.sub(grad, vb.mul(v, vb.div(grad_g, norms))))
    if shape(grad_g) != shape(g):
        grad_g = vb.reshape(grad_g, list(shape(g)))
    return [grad_v, grad_g]


@rule("torch.aten.embedding", dynamic=True)
def embedding(node: Node, weight, indices, padding_idx=-1, scale_grad=False, sparse=False):
    return vb.gather(weight, indices, axis=0)


@rule("torch.aten.index.Tensor", "torch.aten._unsafe_index.Tensor", dynamic=True)
def index(node: Node, x, indices):
    """x[..., i, j, ...] with index tensors on adjacent axes (the others None): one gather on
    those axes flattened, at the flat index i·stride + j (the index tensors broadcast, each
    wrapped once if negative and clamped into its axis). Bilinear upsampling under
    torch.compile reaches here as four such reads of two index tensors each."""
    given = [(d, t) for d, t in enumerate(indices) if t is not None]
    first, count = given[0][0] if given else 0, len(given)
    if not given or [d for d, _ in given] != list(range(first, first + count)):
        raise Unsupported("advanced indexing on axes that are not adjacent")
    if any(element(t) == "i1" for _, t in given):
        raise Unsupported("indexing with a boolean mask (a data-dependent shape)")
    if count == 1:  # versa.gather wraps and clamps the index itself
        return vb.gather(x, given[0][1], axis=first)
    if None in shape(x) or any(None in shape(t) for _, t in given):
        return runtime_sizes.outer_index(node, x, given)
    dims = shape(x)
    sizes = dims[first : first + count]
    where = tuple(np.broadcast_shapes(*(tuple(shape(t)) for _, t in given)))
    flat = None
    for j, (_, t) in enumerate(given):
        i = _in_bounds(node, as_tensor(node, t, "i64"), sizes[j])
        i = vb.broadcast_to(i, list(where)) if tuple(shape(i)) != where else i
        stride = math.prod(sizes[j + 1 :])
        i = vb.mul(i, node.constant(stride, "i64")) if stride != 1 else i
        flat = i if flat is None else vb.add(flat, i)
    x = vb.reshape(x, [*dims[:first], math.prod(sizes), *dims[first + count :]])
    return vb.gather(x, flat, axis=first)


def _in_bounds(node: Node, i, size: int):
    """Index `i` wrapped once if negative (torch's convention) and clamped into [0, size)."""
    wrapped = vb.add(i, node.constant(size, "i64"))
    i = vb.select(vb.compare(i, node.constant(0, "i64"), predicate="lt"), wrapped, i)
    return vb.max(vb.min(i, node.constant(size - 1, "i64")), node.constant(0, "i64"))


@rule("torch.aten.index_select", dynamic=True)
def index_select(node: Node, x, dim, indices):
    return vb.gather(x, indices, axis=axis(dim, x))


@rule("torch.aten.gather", dynamic=True)
def gather(node: Node, x, dim, index, sparse_grad=False):
    """x.gather(dim, index) (take_along_axis) as np.take on the flattened x: index · stride[dim] +
    the other coordinates' offsets (a constant; an index with dynamic dims: iotas sized by it,
    times x's strides, which must be static). torch-mlir's lowering asserts the bounds with
    cf.assert, whose abort/puts the JIT does not provide. The index is wrapped once and clamped
    into its own axis (torch raises there), so compiled code never reads out of bounds."""
    d, dims, where = axis(dim, x), shape(x), shape(index)
    if None in dims:
        raise Unsupported("gather from a tensor with dynamic dims (its strides are run-time sizes)")
    strides = [int(np.prod(dims[a + 1 :])) for a in range(len(dims))]
    idx = _in_bounds(node, as_tensor(node, index, "i64"), dims[d])
    flat = vb.mul(idx, node.constant(strides[d], "i64"))
    if None not in where:
        grid = np.indices(where)
        base = sum((grid[a] * strides[a] for a in range(len(dims)) if a != d), np.zeros(where, np.int64))
        flat = vb.add(flat, node.constant(base, "i64"))
    for a in (a for a in range(len(dims)) if None in where and a != d and where[a] != 1):
        at = vb.iota_like(index, list(range(len(where))), types.element_type("i64"), axis=a)
        flat = vb.add(flat, vb.mul(at, node.constant(strides[a], "i64")))
    return vb.gather(vb.reshape(x, [int(np.prod(dims))]), flat, axis=0)


@rule("torch.aten.take_along_dim")
def take_along_dim(node: Node, x, index, dim=None):
    """A gather of x and index broadcast against each other on every axis but `dim` (as torch
    decomposes it); without a dim, of both flattened."""
    if dim is None:
        flat = vb.reshape(index, [math.prod(shape(index))])
        return gather(node, vb.reshape(x, [math.prod(shape(x))]), 0, flat)
    if rank(x) != rank(index):
        raise Unsupported("take_along_dim with an index of another rank")
    d = axis(dim, x)
    index_shape = np.broadcast_shapes(shape(x)[:d] + (1,) + shape(x)[d + 1 :], shape(index))
    x_shape = index_shape[:d] + shape(x)[d : d + 1] + index_shape[d + 1 :]
    index = index if shape(index) == index_shape else vb.broadcast_to(index, list(index_shape))
    x = x if shape(x) == x_shape else vb.broadcast_to(x, list(x_shape))
    return gather(node, x, d, index)


@rule("torch.aten.prelu", "torch.aten._prelu_kernel")
def prelu(node: Node, x, weight):
    """max(x, 0) + w · min(x, 0), w per channel (dim 1) or one value (torch-mlir's lowering
    broadcasts a per-channel weight against the last dim: a verifier error for NCHW)."""
    if rank(x) >= 2 and shape(weight) != (1,):
        dims = [1] * rank(x)
        dims[1] = shape(weight)[0]
        weight = vb.reshape(weight, dims)
    return vb.add(vb.relu(x), vb.mul(weight, vb.min(x, node.constant(0.0))))
