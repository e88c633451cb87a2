"""PT2E's quantize and dequantize ops (`quantized_decomposed.*`: what torchao's `convert_pt2e`
leaves around the float ops) as versa.quantize and versa.dequantize, bit for bit as torch 2.13
computes them (torch/ao/quantization/fx/_decomposed.py):

    quantize    clamp(round_half_even(x * f32(1 / scale)) + zero_point, quant_min, quant_max)
    dequantize  (f32(x) - zero_point) * f32(scale)

versa.quantize divides, as ONNX's QuantizeLinear: `rint(x / scale)`. torch multiplies by the
f32 reciprocal, whose product can round to the other side of a tie (docs/facts.md), so the rule
multiplies first and quantizes with scale 1: `quantize(x * inv, 1, zp)` is
`saturate(rint(x * inv) + zp)`, torch's exactly (NaN aside: torch converts it to an integer,
undefined in C++; versa gives the zero point). A quant range narrower than the dtype's clamps
in float before (`rint` commutes with a clamp to integers). Dequantize is versa.dequantize's own
definition. Constant scales and zero points (every PT2E graph's) become these ops, which the
quantized-contraction fold (passes/optimize/rules/fold_quantized.py) reads; computed ones (the
`.tensor` overloads of dynamic quantization) take the same steps in float ops.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.ops_quant import TYPE_RANGES
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import as_tensor, axis, element, rank, shape

_NUMPY = {"ui8": np.uint8, "i8": np.int8}


def _quantized_type(dtype: int) -> str:
    name = types.SCALAR_TYPES.get(dtype)
    if name not in _NUMPY:
        raise Unsupported(f"quantization to {name or f'dtype code {dtype}'} (Versa takes uint8, int8)")
    return name


def _constant(x, dim) -> np.ndarray | None:
    """A number, or a `versa.constant` tensor, as an array (0-d for a per-tensor parameter);
    None for a computed tensor."""
    if isinstance(x, int | float):
        return np.asarray(x)
    owner = x.owner.operation if isinstance(x, ir.OpResult) else None
    if owner is None or owner.name != "versa.constant":
        return None
    array = elements_to_numpy(owner.attributes["value"]).reshape(types.value_shape(x.type))
    return array.reshape(()) if dim is None and array.size == 1 else array


def _zero_points(zero_point: np.ndarray | None, elem: str) -> np.ndarray | None:
    """The zero points in the quantized type, or None where one does not fit it (or is computed)."""
    low, high = TYPE_RANGES[elem]
    if zero_point is None or not np.all((zero_point >= low) & (zero_point <= high)):
        return None
    return zero_point.astype(_NUMPY[elem])


def _broadcast(x: ir.Value, dim: int, size: int) -> list[int]:
    """The shape of a per-channel vector of `size` that broadcasts along `dim` of `x`."""
    dims = [1] * rank(x)
    dims[dim] = size
    return dims


def _parameter(node: Node, p, x: ir.Value, dim) -> ir.Value:
    """A scale or zero point (number or tensor) as f32 broadcasting against `x`."""
    p = as_tensor(node, p, "f32")
    if dim is not None:
        return vb.reshape(p, _broadcast(x, dim, shape(p)[0]))
    if shape(p) not in ((), (1,)):
        raise Unsupported(f"per-tensor parameters of shape {list(shape(p))}")
    return vb.reshape(p, []) if rank(p) else p


def _quantize(node: Node, x, scale, zero_point, qmin: int, qmax: int, dtype: int, dim=None) -> ir.Value:
    """torch's quantize (module docstring); `dim`: the channel dim of per-channel parameters."""
    elem = _quantized_type(dtype)
    x = as_tensor(node, x, "f32")  # torch quantizes f16 and bf16 in f32
    scales, zeros = _constant(scale, dim), _zero_points(_constant(zero_point, dim), elem)
    if scales is None or zeros is None or scales.shape != zeros.shape:
        return _computed_quantize(node, x, scale, zero_point, qmin, qmax, elem, dim)
    if dim is None:  # torch: 1.0 / scale in double, rounded to f32 by the multiplication
        inv = vb.constant(np.float32(1.0 / scales.item()))
    else:  # torch: the f32 reciprocal of f32 scales
        inv = vb.constant(
            (np.float32(1.0) / scales.astype(np.float32)).reshape(_broadcast(x, dim, scales.size))
        )
    scaled = vb.mul(x, inv)
    if (qmin, qmax) != TYPE_RANGES[elem]:  # a narrower range: clamped around the zero point first
        if dim is not None:
            raise Unsupported("per-channel quantization to a range narrower than its dtype's")
        scaled = vb.clamp(scaled, min=float(qmin - int(zeros)), max=float(qmax - int(zeros)))
    ones = vb.constant(np.ones(zeros.shape, np.float32))
    return vb.quantize(scaled, ones, vb.constant(zeros), axis=dim)


def _computed_quantize(node: Node, x, scale, zero_point, qmin, qmax, elem: str, dim) -> ir.Value:
    """The same steps as float ops, then an exact quantize of integers (scale 1, zero point 0)."""
    inv = vb.div(node.constant(1.0, "f32"), _parameter(node, scale, x, dim))
    q = vb.add(vb.round(vb.mul(x, inv)), _parameter(node, zero_point, x, dim))
    q = vb.clamp(q, min=float(qmin), max=float(qmax))
    return vb.quantize(q, node.constant(1.0, "f32"), vb.constant(np.zeros((), _NUMPY[elem])))


def _dequantize(node: Node, x, scale, zero_point, dtype: int, dim=None) -> ir.Value:
    """(f32(x) - zero_point) * f32(scale): versa.dequantize for constant parameters."""
    elem = _quantized_type(dtype)
    if element(x) != elem:
        raise Unsupported(f"dequantization of {element(x)} data declared {elem}")
    scales = _constant(scale, dim)
    given = zero_point is not None
    zeros = _zero_points(_constant(zero_point, dim) if given else np.zeros(np.shape(scales), np.int64), elem)
    if scales is not None and zeros is not None and scales.shape == zeros.shape:
        s = vb.constant(scales.astype(np.float32))
        return vb.dequantize(x, s, vb.constant(zeros), axis=dim)
    values = vb.dequantize(x, node.constant(1.0, "f32"), vb.constant(np.zeros((), _NUMPY[elem])))
    if given:
        values = vb.sub(values, _parameter(node, zero_point, x, dim))
    return vb.mul(values, _parameter(node, scale, x, dim))


@rule(
    "torch.quantized_decomposed.quantize_per_tensor",
    "torch.quantized_decomposed.quantize_per_tensor.tensor",
    dynamic=True,
)
def quantize_per_tensor(node: Node, x, scale, zero_point, qmin, qmax, dtype):
    return _quantize(node, x, scale, zero_point, qmin, qmax, dtype)


@rule(
    "torch.quantized_decomposed.dequantize_per_tensor",
    "torch.quantized_decomposed.dequantize_per_tensor.tensor",
    dynamic=True,
)
def dequantize_per_tensor(node: Node, x, scale, zero_point, qmin, qmax, dtype, out_dtype=None):
    """f32 values; another `out_dtype` is the cast the converter adds (torch rounds the same
    f32 product once to f16/bf16)."""
    return _dequantize(node, x, scale, zero_point, dtype)


@rule("torch.quantized_decomposed.quantize_per_channel", dynamic=True)
def quantize_per_channel(node: Node, x, scales, zero_points, channel_axis, qmin, qmax, dtype):
    return _quantize(node, x, scales, zero_points, qmin, qmax, dtype, axis(channel_axis, x))


@rule("torch.quantized_decomposed.dequantize_per_channel", dynamic=True)
def dequantize_per_channel(
    node: Node, x, scales, zero_points, channel_axis, qmin, qmax, dtype, out_dtype=None
):
    return _dequantize(node, x, scales, zero_points, dtype, axis(channel_axis, x))
