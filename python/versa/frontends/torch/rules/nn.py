"""Layers: linear and matmul, normalisation, pooling, softmax, attention, embedding.

Biases become a broadcast `versa.add` after the contraction (versa-fuse makes it an epilogue).
Scaled-dot-product attention is written in versa ops (matmul, scale, mask, softmax, matmul),
never torch-mlir's `tm_tensor.attention`, which our pipeline cannot bufferize.
"""

import math

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from .common import as_tensor, axis, pairs, rank, require_float, shape, transpose


def _swap_last(x):
    perm = list(range(rank(x)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


@rule("torch.aten.linear")
def linear(node: Node, x, weight, bias=None):
    if rank(weight) != 2:
        raise Unsupported("linear with a 1-d weight")
    out = vb.matmul(x, transpose(weight, [1, 0]))
    return out if bias is None else vb.add(out, bias)


@rule("torch.aten.matmul", "torch.aten.mm", "torch.aten.bmm")
def matmul(node: Node, a, b):
    require_float(a, "matmul")
    if rank(a) == 1 or rank(b) == 1:  # vector operands: make them matrices, then drop the dim
        a2 = vb.reshape(a, [1, shape(a)[0]]) if rank(a) == 1 else a
        b2 = vb.reshape(b, [shape(b)[0], 1]) if rank(b) == 1 else b
        return vb.reshape(vb.matmul(a2, b2), node.out.shape)
    return vb.matmul(a, b)


@rule("torch.aten.addmm")
def addmm(node: Node, bias, a, b, beta=1, alpha=1):
    product = vb.matmul(a, b)
    if alpha != 1:
        product = vb.mul(product, node.constant(alpha))
    return vb.add(product, bias if beta == 1 else vb.mul(bias, node.constant(beta)))


@rule("torch.aten.baddbmm")
def baddbmm(node: Node, bias, a, b, beta=1, alpha=1):
    return addmm(node, bias, a, b, beta, alpha)


# ----------------------------------------------------------------------------- normalisation


def _ones_or(node: Node, value, n: int, fill: float):
    return value if value is not None else node.constant(np.full([n], fill))


@rule("torch.aten.batch_norm")
def batch_norm(node: Node, x, weight, bias, mean, var, training, momentum, eps, *_):
    if training or mean is None:
        raise Unsupported("batch_norm with batch statistics (training mode)")
    c = shape(x)[1]
    scale, shift = _ones_or(node, weight, c, 1.0), _ones_or(node, bias, c, 0.0)
    if rank(x) == 4:
        return vb.batch_norm(x, scale, shift, mean, var, epsilon=eps)
    dims = [1] * rank(x)  # BatchNorm1d: the same math, spelt out
    dims[1] = c
    inv = vb.rsqrt(vb.add(var, node.constant(eps)))
    normalised = vb.mul(vb.sub(x, vb.reshape(mean, dims)), vb.reshape(vb.mul(inv, scale), dims))
    return vb.add(normalised, vb.reshape(shift, dims))


@rule("torch.aten.layer_norm")
def layer_norm(node: Node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    tail = shape(x)[rank(x) - len(normalized_shape) :]
    gamma = weight if weight is not None else node.constant(np.ones(tail))
    beta = bias if bias is not None else node.constant(np.zeros(tail))
    return vb.layer_norm(x, gamma, beta, axis=rank(x) - len(normalized_shape), epsilon=eps)


def _group_statistics(node: Node, x, groups: int, eps: float):
    """x normalised per (sample, group), with the group means and 1/std ([N, groups])."""
    n = shape(x)[0]
    grouped = vb.reshape(x, [n, groups, int(np.prod(shape(x)[1:])) // groups])
    mean = vb.reduce_mean(grouped, axes=[2], keepdims=True)
    centered = vb.sub(grouped, mean)
    rstd = vb.rsqrt(
        vb.add(vb.reduce_mean(vb.mul(centered, centered), axes=[2], keepdims=True), node.constant(eps))
    )
    normalised = vb.reshape(vb.mul(centered, rstd), shape(x))
    return normalised, vb.reshape(mean, [n, groups]), vb.reshape(rstd, [n, groups])


def _channel_affine(x, weight, bias):
    per_channel = [1, shape(x)[1]] + [1] * (rank(x) - 2)
    x = x if weight is None else vb.mul(x, vb.reshape(weight, per_channel))
    return x if bias is None else vb.add(x, vb.reshape(bias, per_channel))


@rule("torch.aten.group_norm")
def group_norm(node: Node, x, groups, weight=None, bias=None, eps=1e-5, *_):
    return _channel_affine(_group_statistics(node, x, groups, eps)[0], weight, bias)


@rule("torch.aten.instance_norm")
def instance_norm(node: Node, x, weight, bias, mean, var, use_input_stats, momentum, eps, *_):
    if not use_input_stats:
        raise Unsupported("instance_norm with running statistics")
    return _channel_affine(_group_statistics(node, x, shape(x)[1], eps)[0], weight, bias)


@rule("torch.aten.native_group_norm")
def native_group_norm(node: Node, x, weight, bias, n, c, hw, groups, eps):
    normalised, mean, rstd = _group_statistics(node, x, groups, eps)
    return [_channel_affine(normalised, weight, bias), mean, rstd]


# ----------------------------------------------------------------------------- softmax


@rule("torch.aten.softmax.int", "torch.aten._softmax")
def softmax(node: Node, x, dim, dtype_or_half=None):
    require_float(x, "softmax")
    return vb.softmax(x, axis=axis(dim, x))


@rule("torch.aten._safe_softmax")
def safe_softmax(node: Node, x, dim, dtype=None):
    """softmax, but 0 (not NaN) on rows that are entirely -inf (fully masked attention rows)."""
    d = axis(dim, x)
    empty = vb.compare(vb.reduce_max(x, axes=[d], keepdims=True), node.constant(-np.inf), predicate="eq")
    return vb.select(empty, node.constant(0.0), vb.softmax(x, axis=d))


@rule("torch.aten.log_softmax.int", "torch.aten._log_softmax")
def log_softmax(node: Node, x, dim, dtype_or_half=None):
    d = axis(dim, x)
    shifted = vb.sub(x, vb.reduce_max(x, axes=[d], keepdims=True))
    return vb.sub(shifted, vb.log(vb.reduce_sum(vb.exp(shifted), axes=[d], keepdims=True)))


# ----------------------------------------------------------------------------- pooling


def _pool_shape(size: int, k: int, s: int, lo: int, hi: int, dilation: int = 1) -> int:
    return (size + lo + hi - dilation * (k - 1) - 1) // s + 1


def _pool_attrs(node: Node, x, kernel, stride, padding, ceil_mode, dilation=1):
    kernel = pairs(kernel)
    stride = pairs(stride)[:2] if stride else kernel  # the ONNX path may append dilations
    p = pairs(padding)
    if pairs(dilation) != [1, 1]:
        raise Unsupported("dilated pooling")
    floor = tuple(_pool_shape(shape(x)[2 + i], kernel[i], stride[i], p[i], p[i]) for i in range(2))
    if floor != node.out.shape[2:]:
        raise Unsupported("ceil_mode pooling that changes the output shape")
    return kernel, stride, [p[0], p[1], p[0], p[1]]


@rule("torch.aten.max_pool2d")
def max_pool2d(node: Node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    kernel, stride, pads = _pool_attrs(node, x, kernel, stride, padding, ceil_mode, dilation)
    return vb.max_pool2d(x, kernel=kernel, strides=stride, padding=pads)


@rule("torch.aten.avg_pool2d")
def avg_pool2d(
    node: Node,
    x,
    kernel,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    if divisor_override is not None:
        raise Unsupported("avg_pool2d with divisor_override")
    kernel, stride, pads = _pool_attrs(node, x, kernel, stride, padding, ceil_mode)
    if count_include_pad and any(pads):  # versa averages over the window inside the input: pad first
        x = vb.pad(x, low=[0, 0, pads[0], pads[1]], high=[0, 0, pads[2], pads[3]], value=0.0)
        pads = [0, 0, 0, 0]
    return vb.avg_pool2d(x, kernel=kernel, strides=stride, padding=pads)


@rule("torch.aten.adaptive_avg_pool2d", "torch.aten._adaptive_avg_pool2d")
def adaptive_avg_pool2d(node: Node, x, output_size):
    (h, w), (oh, ow) = shape(x)[-2:], node.out.shape[-2:]
    if (oh, ow) == (1, 1):
        return vb.reduce_mean(x, axes=[rank(x) - 2, rank(x) - 1], keepdims=True)
    if h % oh or w % ow or rank(x) != 4:
        raise Unsupported("adaptive pooling with uneven windows")
    kernel = [h // oh, w // ow]
    return vb.avg_pool2d(x, kernel=kernel, strides=kernel)


# ----------------------------------------------------------------------------- attention, embedding


@rule("torch.aten.scaled_dot_product_attention")
def attention(node: Node, q, k, v, mask=None, dropout=0.0, is_causal=False, scale=None, enable_gqa=False):
    if dropout:
        raise Unsupported("attention dropout")
    if enable_gqa and shape(q)[-3] != shape(k)[-3]:
        raise Unsupported("grouped-query attention")
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


@rule("torch.aten.embedding")
def embedding(node: Node, weight, indices, padding_idx=-1, scale_grad=False, sparse=False):
    return vb.gather(weight, indices, axis=0)


@rule("torch.aten.index.Tensor", "torch.aten._unsafe_index.Tensor")
def index(node: Node, x, indices):
    """x[..., idx, ...] with one index tensor (the others None): a gather on that axis."""
    given = [(d, t) for d, t in enumerate(indices) if t is not None]
    if len(given) != 1:
        raise Unsupported("advanced indexing with several index tensors")
    d, t = given[0]
    return vb.gather(x, t, axis=d)


@rule("torch.aten.index_select")
def index_select(node: Node, x, dim, indices):
    return vb.gather(x, indices, axis=axis(dim, x))
