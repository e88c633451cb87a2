"""Fake quantization (quantization-aware training): per tensor (scale and zero point as numbers or
as tensors), per channel, and the `_cachemask` forms training uses, whose mask is the gradient's
straight-through filter. As torch's kernel, with the reciprocal of the scale rounded to f32:

    q    = round_half_even(x · (1 / scale)) + zero_point      (a float zero point: inside the round)
    out  = (clamp(q, qmin, qmax) - zero_point) · scale
    mask = qmin <= q <= qmax

Every value is an integer or a product of one with the scale until the last multiplication, so
the result is torch's bit for bit.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import as_tensor, axis, element, rank, require_float, shape


def _reciprocal(node: Node, scale, elem: str) -> ir.Value:
    if isinstance(scale, ir.Value):
        return vb.div(node.constant(1.0, elem), as_tensor(node, scale, elem))
    return node.constant(float(np.float32(1.0) / np.float32(scale)), elem)


def _fake_quantize(node: Node, x, scale, zero_point, qmin: int, qmax: int) -> list[ir.Value]:
    """[out, mask]; scale and zero_point are numbers or tensors broadcasting against x."""
    require_float(x, "fake quantization")
    elem = element(x)
    scaled = vb.mul(x, _reciprocal(node, scale, elem))
    fractional = isinstance(zero_point, ir.Value) and types.is_float(element(zero_point))
    zero = as_tensor(node, zero_point, elem)
    q = vb.round(vb.add(scaled, zero)) if fractional else vb.add(vb.round(scaled), zero)
    low, high = node.constant(float(qmin), elem), node.constant(float(qmax), elem)
    out = vb.mul(vb.sub(vb.min(vb.max(q, low), high), zero), as_tensor(node, scale, elem))
    mask = vb.logical_and(vb.compare(q, low, predicate="ge"), vb.compare(q, high, predicate="le"))
    return [out, mask]


@rule(
    "torch.aten.fake_quantize_per_tensor_affine",
    "torch.aten.fake_quantize_per_tensor_affine.tensor_qparams",
)
def per_tensor(node: Node, x, scale, zero_point, qmin, qmax):
    return _fake_quantize(node, x, scale, zero_point, qmin, qmax)[0]


@rule("torch.aten.fake_quantize_per_tensor_affine_cachemask")
def per_tensor_cachemask(node: Node, x, scale, zero_point, qmin, qmax):
    return _fake_quantize(node, x, scale, zero_point, qmin, qmax)


@rule("torch.aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams")
def per_tensor_cachemask_tensor_qparams(node: Node, x, scale, zero_point, enabled, qmin, qmax):
    """With `enabled` (a one-element tensor) below 1: x itself, and a mask of ones."""
    out, mask = _fake_quantize(node, x, scale, zero_point, qmin, qmax)
    on = vb.compare(as_tensor(node, enabled, "i64"), node.constant(1, "i64"), predicate="ge")
    on = vb.reshape(on, [1] * rank(x)) if rank(x) else vb.reshape(on, [])
    return [vb.select(on, out, x), vb.logical_or(mask, vb.logical_not(on))]


def _per_channel(node: Node, x, scale, zero_point, channel_axis, qmin, qmax) -> list[ir.Value]:
    if rank(scale) != 1 or rank(zero_point) != 1:
        raise Unsupported("per-channel fake quantization with scales not of rank 1")
    d = axis(channel_axis, x)
    dims = [1] * rank(x)
    dims[d] = shape(x)[d]
    return _fake_quantize(node, x, vb.reshape(scale, dims), vb.reshape(zero_point, dims), qmin, qmax)


@rule("torch.aten.fake_quantize_per_channel_affine")
def per_channel(node: Node, x, scale, zero_point, channel_axis, qmin, qmax):
    return _per_channel(node, x, scale, zero_point, channel_axis, qmin, qmax)[0]


@rule("torch.aten.fake_quantize_per_channel_affine_cachemask")
def per_channel_cachemask(node: Node, x, scale, zero_point, channel_axis, qmin, qmax):
    return _per_channel(node, x, scale, zero_point, channel_axis, qmin, qmax)


@rule(
    "torch.aten.fake_quantize_per_tensor_affine_cachemask_backward",
    "torch.aten.fake_quantize_per_channel_affine_cachemask_backward",
)
def cachemask_backward(node: Node, grad, mask):
    """The straight-through gradient: grad where the value was not clamped, else 0."""
    return vb.select(mask, grad, node.constant(0.0, element(grad)))
