"""Lowering of versa.quantize, dequantize and requantize to elementwise `linalg.generic`s, and
the erasure of `ui8`, for convert-versa-to-linalg.

Each op is one generic: the value by identity, scale and zero point by `(d...) -> ()` (per
tensor) or `(d...) -> (d_axis)` (per channel). Rounding is `math.roundeven` (half to even, one
instruction with SSE4.1/NEON), saturation clamps in f32 to `[low - zp, high - zp]` before the
conversion (so nothing overflows) and NaN becomes 0, i.e. the zero point: the NumPy semantics
(`dialects/semantics_quant.py`) step for step.

Unsigned bytes: arith and linalg take signless integers only, so a `ui8` operand is viewed as
`i8` through a `builtin.unrealized_conversion_cast` and read with `extui`; a `ui8` result is
cast back. `erase_unsigned`, run once every versa op is lowered, retypes what is left (function
arguments and results, constants, the casts) to i8 and drops the casts, which are then
identities: the bytes never change, only their reading does.
"""

from typing import Any

import numpy as np
from versa.dialects.ops_quant import TYPE_RANGES
from versa.dialects.versa import DequantizeOp, QuantizeOp, RequantizeOp
from versa.mlir import arith, ir
from versa.mlir import math as mmath

from ...common import extents
from ...common import linalg_builders as build
from ...common.matching import result_of, versa_attrs

CAST = "builtin.unrealized_conversion_cast"


# ----------------------------------------------------------------------------- signedness


def is_unsigned(v: ir.Value) -> bool:
    t = v.type
    return isinstance(t, ir.RankedTensorType) and str(t.element_type) == "ui8"


def _retyped(t: ir.RankedTensorType, element: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(t.shape), element)


def _cast(v: ir.Value, to: ir.Type) -> ir.Value:
    return ir.Operation.create(CAST, results=[to], operands=[v]).result


def signless(v: ir.Value) -> ir.Value:
    """`v` itself, or its ui8 bytes viewed as i8."""
    return _cast(v, _retyped(v.type, ir.IntegerType.get_signless(8))) if is_unsigned(v) else v


def resigned(v: ir.Value, like: ir.Type) -> ir.Value:
    """An i8 result as the op's declared type (ui8 where it is)."""
    return _cast(v, like) if v.type != like else v


def widen(v: ir.Value, unsigned: bool, to: ir.Type) -> ir.Value:
    """A scalar 8-bit integer read as signed or unsigned into the wider `to`."""
    return arith.extui(to, v) if unsigned else arith.extsi(to, v)


def erase_unsigned(module: ir.Operation) -> None:
    """ui8 → i8 on every value, function signature and constant left; identity casts dropped."""
    i8 = ir.IntegerType.get_signless(8)

    def erase(t: ir.Type) -> ir.Type:
        is_u8 = isinstance(t, ir.RankedTensorType) and str(t.element_type) == "ui8"
        return _retyped(t, i8) if is_u8 else t

    casts: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.func":
            fn = op.opview
            ftype = fn.type
            fn.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get([erase(t) for t in ftype.inputs], [erase(t) for t in ftype.results])
            )
            for block in fn.regions[0].blocks:
                for arg in block.arguments:
                    arg.set_type(erase(arg.type))
        elif op.name == "arith.constant" and erase(op.result.type) != op.result.type:
            values = np.array(op.attributes["value"]).astype(np.uint8).view(np.int8)
            shape = list(op.result.type.shape)
            op.attributes["value"] = ir.DenseElementsAttr.get(values.reshape(shape), type=i8, shape=shape)
        for result in op.results:
            result.set_type(erase(result.type))
        if op.name == CAST:
            casts.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    for op in casts:
        if op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()


# ----------------------------------------------------------------------------- affine ops


def _parameter_maps(op: ir.OpView, rank: int) -> list[ir.AffineMap]:
    """The value's identity, then the scale's and zero point's: per channel or per tensor."""
    per_channel = bool(build.shape_of(op.operands[1]))
    dims = [versa_attrs(op)["axis"] % rank] if per_channel else []
    return [ir.AffineMap.get_identity(rank), *[build.dims_map(rank, dims)] * 2]


def _saturated(rounded: ir.Value, zero: ir.Value, low: int, high: int, element: ir.Type) -> ir.Value:
    """clamp(rounded + zero, low, high) as `element` (i8): clamped in f32 first, NaN → zero."""
    i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()
    bounds = [arith.sitofp(f32, arith.subi(build.scalar(i32, b), zero)) for b in (low, high)]
    clamped = arith.minimumf(arith.maximumf(rounded, bounds[0]), bounds[1])
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, rounded, rounded)
    finite = arith.select(is_nan, build.scalar(f32, 0.0), clamped)
    return arith.trunci(element, arith.addi(arith.fptosi(i32, finite), zero))


def scalar(op: ir.OpView, x: ir.Value, s: ir.Value, z: ir.Value) -> ir.Value:
    """`op` (quantize, dequantize, requantize) at one point: its value, scale and zero point as
    a generic reads them (8-bit integers as i8); an 8-bit result as i8. The body of its own
    generic, and of a fused group's (`lower_fused.py`)."""
    (_, element), unsigned = result_of(op), is_unsigned(op.operands[2])
    out_element = ir.IntegerType.get_signless(8) if str(element) == "ui8" else element
    i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()
    z = widen(z, unsigned, i32)
    name = op.operation.name
    if name == "versa.dequantize":
        return arith.mulf(arith.sitofp(f32, arith.subi(widen(x, unsigned, i32), z)), s)
    low, high = _range(op)
    scaled = arith.divf(x, s) if name == "versa.quantize" else arith.mulf(arith.sitofp(f32, x), s)
    return _saturated(mmath.roundeven(scaled), z, low, high, out_element)


def lower_affine(op: ir.OpView, rewriter: Any) -> bool:
    """quantize → generic{roundeven(x / s), clamped, + zp}; requantize → generic{roundeven(f32(x)
    * s), clamped to [min, max], + zp}; dequantize → generic{f32(ext(x) - zp) * s}: one generic
    over the value, the scale and zero point per tensor or per channel."""
    (shape, element), (x, scale, zero) = result_of(op), op.operands
    out_element = ir.IntegerType.get_signless(8) if str(element) == "ui8" else element

    def body(xs: ir.Value, s: ir.Value, z: ir.Value, _: ir.Value) -> list[ir.Value]:
        return [scalar(op, xs, s, z)]

    inputs = [signless(x), scale, signless(zero)]
    maps = [*_parameter_maps(op, len(shape)), ir.AffineMap.get_identity(len(shape))]
    outputs = [build.empty(extents.of(x), out_element)]  # x's shape, dynamic dims included
    (y,) = build.generic(inputs, outputs, maps, [build.PARALLEL] * len(shape), body)
    rewriter.replace_op(op, [resigned(y, op.results[0].type)])
    return True


def _range(op: ir.OpView) -> tuple[int, int]:
    low, high = TYPE_RANGES[str(op.results[0].type.element_type)]
    attrs = versa_attrs(op)
    return (
        low if attrs.get("min") is None else attrs["min"],
        high if attrs.get("max") is None else attrs["max"],
    )


PATTERNS = [(QuantizeOp, lower_affine), (DequantizeOp, lower_affine), (RequantizeOp, lower_affine)]
