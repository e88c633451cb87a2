"""Builders of the quantized ops (re-exported by `builders.py`: `vb.quantize(...)`); conventions
as in `builders.py`. Scales and zero points are tensors: 0-d per tensor, 1-d per channel.

    s = vb.constant(np.float32(0.05)); z = vb.constant(np.uint8(128))
    q = vb.quantize(x, s, z)                                   # tensor<...xui8>
    acc = vb.qmatmul(q, w, z, vb.constant(np.int8(0)))         # tensor<...xi32>
    y = vb.requantize(vb.add(acc, bias), s2, z, min=128)       # a ReLU in the clamp
"""

from versa.mlir import ir

from . import versa as v
from .build_support import Ints, Ip, Loc, attrs, conv2d_attrs, i64, with_element


def _i32() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def quantize(
    x: ir.Value,
    scale: ir.Value,
    zero_point: ir.Value,
    *,
    axis: int | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.quantize`: f32 → zero point's type (i8 or ui8), ONNX QuantizeLinear's rounding."""
    element = zero_point.type.element_type
    return with_element(v.QuantizeOp, [x, scale, zero_point], attrs(axis=i64(axis)), element, loc, ip)


def dequantize(
    x: ir.Value,
    scale: ir.Value,
    zero_point: ir.Value,
    *,
    axis: int | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.dequantize`: (x - zero_point) * scale in f32."""
    return with_element(
        v.DequantizeOp, [x, scale, zero_point], attrs(axis=i64(axis)), ir.F32Type.get(), loc, ip
    )


def requantize(
    x: ir.Value,
    scale: ir.Value,
    zero_point: ir.Value,
    *,
    axis: int | None = None,
    min: int | None = None,
    max: int | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.requantize`: i32 → clamp(rint(x * scale) + zero_point, min, max) in the zero point's type."""
    given = attrs(axis=i64(axis), min=i64(min), max=i64(max))
    return with_element(v.RequantizeOp, [x, scale, zero_point], given, zero_point.type.element_type, loc, ip)


def qmatmul(
    a: ir.Value,
    b: ir.Value,
    a_zero_point: ir.Value,
    b_zero_point: ir.Value,
    *,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.qmatmul`: (a - a_zero_point) @ (b - b_zero_point) in i32."""
    return with_element(v.QMatmulOp, [a, b, a_zero_point, b_zero_point], {}, _i32(), loc, ip)


def qconv2d(
    x: ir.Value,
    w: ir.Value,
    x_zero_point: ir.Value,
    w_zero_point: ir.Value,
    *,
    strides: Ints | None = None,
    padding: Ints | None = None,
    dilations: Ints | None = None,
    groups: int | None = None,
    layout: str | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.qconv2d`: conv2d of the centred input and filter in i32 (attributes as conv2d)."""
    given = conv2d_attrs(strides, padding, dilations, groups, layout)
    return with_element(v.QConv2dOp, [x, w, x_zero_point, w_zero_point], given, _i32(), loc, ip)
