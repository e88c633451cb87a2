"""Quantized ops: affine quantization of f32 tensors to 8-bit integers and integer contractions
with i32 accumulation, split the way ONNX (QuantizeLinear, DequantizeLinear, MatMulInteger,
ConvInteger) and TOSA (`tosa.rescale`, zero points on `tosa.conv2d`) split them:

    %q = "versa.quantize"(%x, %s, %z) {axis = 1 : i64}
           : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
    %d = "versa.dequantize"(%q, %s, %z) : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xf32>
    %a = "versa.qmatmul"(%q, %w, %qz, %wz)
           : (tensor<2x3xui8>, tensor<3x4xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x4xi32>
    %y = "versa.requantize"(%a, %rs, %rz) {min = 0 : i64}
           : (tensor<2x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>

Why dedicated ops rather than integer `versa.matmul`/`versa.conv2d`: those take floats only,
their result has their operands' type, and every rewrite written for them (batch-norm folding,
layout, fusion, codegen) assumes so; zero points are extra operands that change the arithmetic.
A separate op keeps float rules from applying silently to integers, as ONNX and
`linalg.quantized_matmul` keep them apart.

Why scales and zero points are operands (0-d per tensor, 1-d per channel along `axis`), as in
ONNX: one form for constants and computed (dynamic) parameters, reusing `versa.constant`.
Unsigned 8-bit data is `ui8` (NumPy uint8), accepted by these ops only; the lowering erases
the sign (`lower_quant.erase_unsigned`), as arith and linalg know signless integers only.
"""

from versa.mlir import ext

from . import shapes
from .attributes import Int
from .core import CONV2D_ATTRS, ELEMENT_TYPES, Tensor, VersaOp

QUANTIZED_TYPES = ("i8", "ui8")
TYPE_RANGES = {"i8": (-128, 127), "ui8": (0, 255)}


def _element(t: Tensor) -> str:
    return str(t.element_type)


def _require_element(t: Tensor, allowed: tuple[str, ...], what: str) -> None:
    shapes.require(
        _element(t) in allowed, f"{what} element type must be {' or '.join(allowed)}, got {t.element_type}"
    )


def quantization_axis(
    value: shapes.Shape, scale: shapes.Shape, zero_point: shapes.Shape, axis: int
) -> int | None:
    """The channel axis of per-channel parameters (normalised), None for per-tensor ones;
    raises RuleError where scale and zero point do not fit the value."""
    shapes.require(
        shapes.same_shape(scale, zero_point),
        f"scale shape {list(scale)} differs from zero point shape {list(zero_point)}",
    )
    shapes.require(
        len(scale) <= 1, f"scale must be 0-d (per tensor) or 1-d (per channel), got rank {len(scale)}"
    )
    if not scale:
        return None
    rank = len(value)
    shapes.require(-rank <= axis < rank, f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    shapes.require(
        shapes.same(scale[0], value[axis]),
        f"per-channel scale has {scale[0]} elements, but dim {axis} has {value[axis]}",
    )
    return axis


class QuantOp(VersaOp):
    """Base of the quantized ops: ui8 is accepted besides the dialect's element types."""

    ACCEPTED_TYPES = (*ELEMENT_TYPES, "ui8")


class AffineOp(QuantOp):
    """quantize, dequantize, requantize: (value, scale, zero point) → value's shape."""

    POINTWISE = True
    ATTRS = {"axis": Int(default=1)}
    input: ext.Operand[Tensor]
    scale: ext.Operand[Tensor]
    zero_point: ext.Operand[Tensor]
    result: ext.Result[Tensor]
    INPUT_TYPES = ()  # no annotation: ext would read it as a field

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        quantization_axis(operands[0], operands[1], operands[2], attrs["axis"])
        return operands[0]

    @classmethod
    def check_element_types(cls, operands, results):
        value, scale, zero_point = operands
        _require_element(value, cls.INPUT_TYPES, "input")
        _require_element(scale, ("f32",), "scale")
        _require_element(zero_point, QUANTIZED_TYPES, "zero point")
        cls.check_result_type(value, zero_point, results[0])


class QuantizeOp(AffineOp, name="quantize", traits=[ext.Pure]):
    """y = saturate(round_half_even(x / scale) + zero_point): ONNX QuantizeLinear."""

    INPUT_TYPES = ("f32",)

    @classmethod
    def check_result_type(cls, value, zero_point, result):
        shapes.require(
            result.element_type == zero_point.element_type,
            f"result element type {result.element_type} differs from the zero point's "
            f"{zero_point.element_type}",
        )


class DequantizeOp(AffineOp, name="dequantize", traits=[ext.Pure]):
    """y = (x - zero_point) * scale in f32: ONNX DequantizeLinear, torch's dequantize."""

    INPUT_TYPES = QUANTIZED_TYPES

    @classmethod
    def check_result_type(cls, value, zero_point, result):
        shapes.require(
            zero_point.element_type == value.element_type,
            f"zero point element type {zero_point.element_type} differs from the input's "
            f"{value.element_type}",
        )
        _require_element(result, ("f32",), "result")


class RequantizeOp(AffineOp, name="requantize", traits=[ext.Pure]):
    """y = clamp(round_half_even(f32(x) * scale) + zero_point, min, max) from i32: the epilogue
    of an integer contraction, as fbgemm's float requantization (`min`/`max` default to the
    result type's range; `min = zero_point` is a fused ReLU)."""

    ATTRS = {"axis": Int(default=1), "min": Int(default=None), "max": Int(default=None)}
    INPUT_TYPES = ("i32",)

    @classmethod
    def check_result_type(cls, value, zero_point, result):
        QuantizeOp.check_result_type(value, zero_point, result)

    @classmethod
    def check(cls, op):
        super().check(op)
        attrs = cls.attrs(op)
        low, high = TYPE_RANGES[_element(op.results[0].type)]
        lo = low if attrs["min"] is None else attrs["min"]
        hi = high if attrs["max"] is None else attrs["max"]
        shapes.require(
            low <= lo <= hi <= high,
            f"clamp bounds [{lo}, {hi}] must be ordered and within the result type's [{low}, {high}]",
        )


class ContractionOp(QuantOp):
    """qmatmul, qconv2d: 8-bit operands, each with a 0-d zero point of its type, i32 result."""

    NAMES = ("lhs", "rhs")  # the two data operands, in diagnostics

    @classmethod
    def check_element_types(cls, operands, results):
        lhs, rhs, lhs_zero, rhs_zero = operands
        for value, zero, what in zip((lhs, rhs), (lhs_zero, rhs_zero), cls.NAMES, strict=True):
            _require_element(value, QUANTIZED_TYPES, what)
            shapes.require(
                zero.element_type == value.element_type,
                f"{what} zero point element type {zero.element_type} differs from {value.element_type}",
            )
            shapes.require(not zero.shape, f"{what} zero point must be 0-d, got {list(zero.shape)}")
        _require_element(results[0], ("i32",), "result")


class QMatmulOp(ContractionOp, name="qmatmul", traits=[ext.Pure]):
    """(lhs - lhs_zero_point) @ (rhs - rhs_zero_point) in i32: ONNX MatMulInteger. lhs is
    [..., M, K]; rhs is [K, N] or has lhs's batch dims."""

    BROADCAST_TAIL = 2

    lhs: ext.Operand[Tensor]
    rhs: ext.Operand[Tensor]
    lhs_zero_point: ext.Operand[Tensor]
    rhs_zero_point: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        a, b = operands[0], operands[1]
        shape = shapes.matmul(a, b)
        shapes.require(
            len(b) == 2 or shapes.same_shape(a[:-2], b[:-2]),
            f"rhs must be 2-D or have the lhs's batch dims {shapes.text(a[:-2])}, got {shapes.text(b)}",
        )
        return shape


class QConv2dOp(ContractionOp, name="qconv2d", traits=[ext.Pure]):
    """conv2d of (input - input_zero_point) and (filter - filter_zero_point) in i32: ONNX
    ConvInteger. Padding reads the input's zero point (a real 0), as torch and ONNX pad."""

    NAMES = ("input", "filter")

    ATTRS = dict(CONV2D_ATTRS)
    input: ext.Operand[Tensor]
    filter: ext.Operand[Tensor]
    input_zero_point: ext.Operand[Tensor]
    filter_zero_point: ext.Operand[Tensor]
    result: ext.Result[Tensor]

    @classmethod
    def result_shape(cls, operands, attrs, declared=None):
        keys = ("strides", "padding", "dilations", "groups", "layout")
        return shapes.conv2d(operands[0], operands[1], *(attrs[k] for k in keys))
