"""A max pool between a dequantize and a quantize of the same parameters, pooled on the integers.

PT2E's X86 quantizer (and ONNX QDQ) shares the quantization of a max pool's input with its
output, so a quantized CNN's stem reaches versa-canonicalize as

    %d = dequantize(%q, s, z)                   per tensor, %q i8 or ui8, s > 0
    %p = max_pool2d(%d)                         f32
    %m = mul(%p, k)                             optional, a splat: PT2E's quantize is x · f32(1/s)
    %r = quantize(%m, s', z')                   per tensor, %q's type
  → sink_pool
    %p = dequantize(max_pool2d(%q), s, z)       the pool on the bytes (ui8 compares unsigned)
  → cancel_round_trip, where quantize(k · dequantize(v)) == v for each of the 256 values v
    %r = max_pool2d(%q)

Both exact. Dequantize is non-decreasing (s > 0; f32 rounding is monotone) and makes no -0 or
NaN, so the max of the dequantized window is the dequantized max, and every window holds an
input element (a pool's padding is smaller than its kernel), so neither padding value (-inf,
the integer minimum) is ever the max. The round trip is checked on every value of the type with
the NumPy reference (`semantics_quant`, f32 as the lowering computes it): it holds for s' = s,
or k = f32(1/s) and s' = 1 (PT2E), unless s is so small or large that k · s leaves the normal
f32 range. A pool whose float result is also read elsewhere (a residual) keeps that reader on
the dequantized integer pool. Why: the float pool read and wrote 4 bytes an element, a pass
dequantized its input and another quantized its output; ResNet-50's stem pool now reads 1 byte
an element, which the requantize before it writes.
"""

import numpy as np
from versa.dialects.ops_quant import TYPE_RANGES
from versa.dialects.semantics_quant import dequantize as dequantize_reference
from versa.dialects.semantics_quant import quantize as quantize_reference
from versa.dialects.versa import DequantizeOp, MaxPool2dOp, QuantizeOp
from versa.mlir import ir, rewrite

from ...common.matching import producer
from .quantized_pads import scalar, splat_factor

Rewriter = rewrite.PatternRewriter
_NUMPY = {"i8": np.int8, "ui8": np.uint8}


def round_trips(element: str, dequantized: tuple, quantized: tuple, k: np.float32 | None) -> bool:
    """Whether quantize(k · dequantize(q)) == q for every q of `element` (i8 or ui8), the
    parameters (scale, zero point) 0-d arrays, both scales and k positive."""
    (sd, zd), (sq, zq) = dequantized, quantized
    if not (sd > 0 and sq > 0 and (k is None or k > 0)):
        return False
    low, high = TYPE_RANGES[element]
    q = np.arange(low, high + 1).astype(_NUMPY[element])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        x = dequantize_reference(q, sd, zd)
        if k is not None:
            x = (x * k).astype(np.float32)
        back = quantize_reference(x, sq, zq, dtype=_NUMPY[element])
    return bool(np.array_equal(back, q.astype(np.int64)))


def sink_pool(op: ir.OpView, rewriter: Rewriter) -> bool:
    """max_pool2d(dequantize(q, s, z)) → dequantize(max_pool2d(q), s, z), per tensor, s > 0."""
    dequantize = producer(op.operands[0], "versa.dequantize")
    if dequantize is None or str(op.results[0].type.element_type) != "f32":
        return False
    q, scale, zero = dequantize.operands
    s = scalar(scale)
    if str(q.type.element_type) not in _NUMPY or s is None or scalar(zero) is None or not s > 0:
        return False
    attributes = dict(op.operation.attributes.items())
    pooled_type = ir.RankedTensorType.get(op.results[0].type.shape, q.type.element_type)
    pooled = MaxPool2dOp.build([q], attributes, pooled_type, loc=op.location)
    affine = dict(dequantize.operation.attributes.items())
    rewriter.replace_op(op, [DequantizeOp.build([pooled, scale, zero], affine, op.results[0].type)])
    return True


def cancel_round_trip(op: ir.OpView, rewriter: Rewriter) -> bool:
    """quantize([mul](dequantize(v), k)) → v, where that gives v back for every value."""
    element = str(op.results[0].type.element_type)
    quantized = scalar(op.operands[1]), scalar(op.operands[2])
    if element not in _NUMPY or None in quantized:
        return False
    value, k = op.operands[0], None
    mul = producer(value, "versa.mul")
    if mul is not None:
        found = splat_factor(mul)
        if found is None:
            return False
        k, value = np.float32(found[0]), found[1]
    dequantize = producer(value, "versa.dequantize")
    if dequantize is None or str(value.type.element_type) != "f32":
        return False
    v = dequantize.operands[0]
    dequantized = scalar(dequantize.operands[1]), scalar(dequantize.operands[2])
    if v.type != op.results[0].type or None in dequantized:
        return False
    if not round_trips(element, dequantized, quantized, k):
        return False
    rewriter.replace_op(op, [v])
    return True


PATTERNS = [(MaxPool2dOp, sink_pool), (QuantizeOp, cancel_round_trip)]
