"""Pooling gradients beyond rules/backward.py's: max pools by their indices, 3-d average pooling.

Max pooling (2-d dilated, 3-d, adaptive): the forward's indices are flat positions in the input's
spatial dims, so the input gradient is one scatter-add of the output grad into zeros at those
positions (overlapping windows that pick one element add up, as in torch's kernel). Memory and
work are the output's, whatever the kernel, dilation, padding or ceil_mode.

Average pooling in 3-d is separable as in 2-d (rules/pool.py): its divisor is a product of
per-axis window counts, so the gradient is the transposed averaging matrix along each axis.
"""

import math

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, op_name, rule
from . import pool
from .common import as_tensor, element, pairs, rank, shape


def scatter_to_argmax(node: Node, grad, x, indices, spatial: int):
    """dL/dx of a max pool: each output point's grad added at its argmax (`indices`: flat
    positions in x's last `spatial` dims, per leading [N, C] plane)."""
    planes = math.prod(shape(x)[:-spatial])
    size, points = math.prod(shape(x)[-spatial:]), math.prod(shape(grad)[-spatial:])
    i64 = ir.IntegerType.get_signless(64)
    where = vb.reshape(as_tensor(node, indices, "i64"), [planes, points, 1])
    rows = vb.concat([vb.iota([planes, points, 1], i64, axis=0), where], axis=2)
    zeros = vb.broadcast_to(node.constant(0.0, element(grad)), [planes, size])
    summed = vb.scatter(zeros, rows, vb.reshape(grad, [planes, points]), reduction="add")
    return vb.reshape(summed, list(shape(x)))


@rule("torch.aten.adaptive_max_pool2d_backward", "torch.aten.adaptive_max_pool3d_backward")
def adaptive_max_pool_backward(node: Node, grad, x, indices):
    spatial = 2 if op_name(node.op).endswith("2d_backward") else 3
    return scatter_to_argmax(node, grad, x, indices, spatial)


@rule("torch.aten.max_pool3d_with_indices_backward")
def max_pool3d_backward(node: Node, grad, x, kernel, stride, padding, dilation, ceil_mode, indices):
    return scatter_to_argmax(node, grad, x, indices, 3)


def along_axes(node: Node, x, mats: list[np.ndarray]):
    """x with matrix mats[i] ([out, size]) applied along each of its last len(mats) dims: a
    matmul per dim (the last from the right, the others from the left over the flattened rest)."""
    for i, m in enumerate(mats):
        d = rank(x) - len(mats) + i
        dims = list(shape(x))
        if d == rank(x) - 1:
            x = vb.matmul(x, node.constant(np.ascontiguousarray(m.T), element(x)))
            continue
        rest = math.prod(dims[d + 1 :])
        flat = vb.reshape(x, [*dims[:d], dims[d], rest])
        x = vb.reshape(vb.matmul(node.constant(m, element(x)), flat), [*dims[:d], m.shape[0], *dims[d + 1 :]])
    return x


@rule("torch.aten.avg_pool3d_backward")
def avg_pool3d_backward(
    node: Node, grad, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    """P_dᵀ, P_hᵀ, P_wᵀ applied along the three spatial axes."""
    if rank(x) not in (4, 5):
        raise Unsupported(f"avg_pool3d_backward of a {rank(x)}-d tensor")
    kernel, p = pairs(kernel, 3), pairs(padding, 3)
    stride = pairs(stride, 3) if stride else kernel
    sizes, outs = shape(x)[-3:], shape(grad)[-3:]
    mats = [
        pool._avg_matrix(outs[i], sizes[i], kernel[i], stride[i], p[i], bool(count_include_pad), None)
        for i in range(3)
    ]
    if divisor_override:  # window indicators; the divisor once, at the end
        mats = [(m > 0).astype(np.float64) for m in mats]
    out = along_axes(node, grad, [m.T for m in mats])
    if divisor_override:
        out = vb.div(out, node.constant(float(divisor_override), element(grad)))
    return out


@rule("torch.aten._adaptive_avg_pool3d_backward", "torch.aten.adaptive_avg_pool3d_backward")
def adaptive_avg_pool3d_backward(node: Node, grad, x):
    mats = [pool._adaptive_matrix(o, n) for o, n in zip(shape(grad)[-3:], shape(x)[-3:], strict=True)]
    return along_axes(node, grad, [m.T for m in mats])
