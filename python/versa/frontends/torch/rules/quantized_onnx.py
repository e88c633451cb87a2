"""ONNX's QuantizeLinear and DequantizeLinear as torch-mlir's ONNX conversion writes them, onto
versa.quantize and versa.dequantize (the ONNX frontend's `quantized.py` brings every integer op
of a model to these two, with constant parameters):

    QuantizeLinear(x, s, z)     aten.quantize_per_tensor(x, s, z, dtype) + aten.int_repr
                                → versa.quantize: saturate(rint(x / s) + z), ONNX's definition
    DequantizeLinear(q, s, z)   aten._make_per_tensor_quantized_tensor(q, s, z) + dequantize.self
      per channel (axis)        aten._make_per_channel_quantized_tensor(q, s[], z[], axis) + ...
                                → versa.dequantize: (q - z) * s in f32

A `!torch.quint8` / `!torch.qint8` value has no versa type: it converts to its integers, and
`dequantize.self` reads the scale and zero point from the op that made it, in the torch IR.
`aten.quantize_per_tensor` is taken in ONNX imports only: torch's own op rounds
`x * (1/s) + z` with a fused multiply-add (docs/facts.md), which versa.quantize does not.
torch-mlir widens a uint8 literal to i32 (the torch rules read bytes as bools): constants are
rebuilt from their arrays in the declared element type.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import element

_NUMPY = {"ui8": np.uint8, "i8": np.int8}
_QUANTIZED = {"!torch.quint8": "ui8", "!torch.qint8": "i8"}
_DTYPES = {13: "ui8", 12: "i8"}  # torch's ScalarType codes of quint8, qint8 (torch-mlir's dtype)


def _onnx_import(node: Node) -> bool:
    parent = node.op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent is not None and "torch.onnx_meta.opset_version" in parent.attributes


def _quantized_element(t: ir.Type) -> str | None:
    text = str(t)
    return next((e for q, e in _QUANTIZED.items() if text.endswith(f",{q}>")), None)


def _integers(node: Node, value, elem: str) -> ir.Value:
    """Operand 0 of `node` as a tensor of `elem`: a literal (an ONNX int8 initializer is an si8
    one, which the literal rule refuses) or a widened uint8 constant rebuilt from its array."""
    source = node.op.operands[0]
    shape = types.parse_tensor_type(source.type).shape
    array = _literal(source)
    if isinstance(array, np.ndarray):
        return vb.constant(array.reshape(shape).astype(_NUMPY[elem]))
    if not isinstance(value, ir.Value) or element(value) != elem:
        raise Unsupported(f"quantized data of {source.type}, declared {elem}")
    return value


def _literal(value: ir.Value) -> np.ndarray | float | int | None:
    """The constant behind a torch value: a `torch.constant.*` number or a literal's array."""
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is None:
        return None
    name = owner.operation.name
    if name in ("torch.constant.float", "torch.constant.int"):
        attr = owner.attributes["value"]
        return ir.FloatAttr(attr).value if name.endswith("float") else ir.IntegerAttr(attr).value
    if name == "torch.vtensor.literal":
        return np.asarray(elements_to_numpy(owner.attributes["value"]))
    return None


@rule("torch.aten.quantize_per_tensor")
def quantize_per_tensor(node: Node, x, scale, zero_point, dtype):
    if not _onnx_import(node):
        raise Unsupported("torch's quantize_per_tensor (its fma rounding); ONNX's QuantizeLinear only")
    elem = _DTYPES.get(dtype)
    if elem not in _NUMPY or not isinstance(scale, float) or not isinstance(zero_point, int):
        raise Unsupported("quantization to a type other than uint8 / int8, or with computed parameters")
    if not isinstance(x, ir.Value) or element(x) != "f32":
        raise Unsupported("quantization of a tensor that is not f32")
    s = vb.constant(np.float32(scale))  # the f32 scale ONNX stored, exactly (as a double)
    return vb.quantize(x, s, vb.constant(np.asarray(zero_point, _NUMPY[elem])))


@rule("torch.aten.int_repr")
def int_repr(node: Node, q):
    if node.out.element not in _NUMPY or not isinstance(q, ir.Value) or element(q) != node.out.element:
        raise Unsupported("the integers of a quantized tensor Versa did not make")
    return q


@rule("torch.aten._make_per_tensor_quantized_tensor", "torch.aten._make_per_channel_quantized_tensor")
def make_quantized(node: Node, data, *parameters):
    """The integers themselves; `dequantize.self` reads the parameters."""
    elem = _quantized_element(node.op.results[0].type)
    if elem is None:
        raise Unsupported(f"a quantized tensor of type {node.op.results[0].type} (quint8, qint8 only)")
    return _integers(node, data, elem)


@rule("torch.aten.dequantize.self")
def dequantize(node: Node, q):
    maker = node.op.operands[0].owner if isinstance(node.op.operands[0], ir.OpResult) else None
    names = ("torch.aten._make_per_tensor_quantized_tensor", "torch.aten._make_per_channel_quantized_tensor")
    if maker is None or maker.operation.name not in names or not isinstance(q, ir.Value):
        raise Unsupported("a quantized tensor not made by ONNX's DequantizeLinear")
    scale, zero = (_literal(v) for v in maker.operands[1:3])
    if scale is None or zero is None:
        raise Unsupported("a scale or zero point computed at run time")
    elem = element(q)
    if maker.operation.name.endswith("per_channel_quantized_tensor"):
        axis = _literal(maker.operands[3])
        scale, zero = np.asarray(scale).reshape(-1), np.asarray(zero).reshape(-1)
        if np.unique(zero).size == 1 and np.unique(scale).size == 1:  # one value: per tensor
            scale, zero, axis = scale[0], zero[0], None
    else:
        axis = None
    s = vb.constant(np.asarray(scale, np.float32))
    return vb.dequantize(q, s, vb.constant(np.asarray(zero).astype(_NUMPY[elem])), axis=axis)
