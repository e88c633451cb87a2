"""An explicit padding before a quantized conv, moved into the conv's own (zero-point) padding.

Models that pad by hand (HF MobileNetV2's TensorFlow-style "same" padding before each
depthwise conv) reach `fold_quantized` as

    %y = clamp(cast(acc) · sw + b)              the previous conv's float epilogue (ReLU6)
    %p = pad(%y, low, high, c)                  H and W only, f32
    %m = mul(%p, k)                             a splat k: PT2E's quantize is x · f32(1/s)
    %q = quantize(%m, s, z)                     per tensor
    %a = qconv2d(%q, W, zx, zw) {padding = P}
  → fold_padding, where quantize(c · k, s, z) = zx
    %a = qconv2d(quantize(mul(%y, k), s, z), W, zx, zw) {padding = P + (low, high)}

Exact: every element the pad added quantizes to zx, and qconv2d pads its input with its zero
point (ops_quant.QConv2dOp), so the conv reads the same bytes. It matters for speed: the pad
sat between the epilogue and its quantize, so the previous conv wrote f32 (4 bytes an element,
not 1), a second pass copied it into the padded f32 tensor and a third quantized that; moved,
`fold_requantize` makes the chain the previous conv's requantize (its kernel writes u8) and
the depthwise kernel reads the zero-point borders itself (cpu/kernels/int8_borders.py).

Identity pads (`algebra.identity_pad`, which versa-canonicalize applies only later) go first:
PT2E MobileNetV2 has one before most quantizes, and it hid the float epilogue from
fold_requantize too.
"""

import numpy as np
from versa.dialects import builders as vb
from versa.dialects.semantics_quant import quantize as quantize_reference
from versa.dialects.versa import PadOp, QConv2dOp, QuantizeOp
from versa.mlir import ir, rewrite

from ...common.matching import constant_array, has_one_use, producer, splat_value
from .algebra import identity_pad
from .float_pads import conv_padding

Rewriter = rewrite.PatternRewriter
_NUMPY = {"i8": np.int8, "ui8": np.uint8}


def scalar(value: ir.Value) -> np.ndarray | None:
    """A one-element constant's array (0-d), else None."""
    array = constant_array(value)
    return None if array is None or array.size != 1 else array.reshape(())


def splat_factor(mul: ir.OpView) -> tuple[float, ir.Value] | None:
    """(k, x) of mul(x, k) or mul(k, x) with a splat k that keeps x's type (quantized_pool.py too)."""
    for value, other in (mul.operands, reversed(list(mul.operands))):
        k = splat_value(value)
        ones = all(d == 1 for d in ir.RankedTensorType(value.type).shape)  # broadcasts to any y
        if k is not None and ones and other.type == mul.results[0].type:
            return float(k), other
    return None


def fold_padding(op: ir.OpView, rewriter: Rewriter) -> bool:
    """qconv2d(quantize([mul](pad(y)))) → qconv2d(quantize([mul](y))) with the pad in its padding."""
    q = producer(op.operands[0], "versa.quantize")
    zx = scalar(op.operands[2])
    if q is None or zx is None or not has_one_use(q.results[0]):
        return False
    scale, zero = scalar(q.operands[1]), scalar(q.operands[2])
    if scale is None or zero is None:
        return False
    value, k, mul = q.operands[0], None, producer(q.operands[0], "versa.mul")
    if mul is not None:
        found = splat_factor(mul)
        if found is None or not has_one_use(mul.results[0]):
            return False
        k, value = found
    pad = producer(value, "versa.pad")
    if pad is None or not has_one_use(pad.results[0]):
        return False
    padding = conv_padding(pad, QConv2dOp.attrs(op))
    if padding is None:
        return False
    fill = np.float32(PadOp.attrs(pad)["value"]) * (np.float32(k) if k is not None else np.float32(1))
    element = str(q.results[0].type.element_type)
    if element not in _NUMPY or quantize_reference(fill, scale, zero, dtype=_NUMPY[element]) != int(zx):
        return False
    y = pad.operands[0]
    if k is not None:
        y = vb.mul(y, mul.operands[1] if mul.operands[0] == value else mul.operands[0])
    quantized_type = ir.RankedTensorType.get(y.type.shape, q.results[0].type.element_type)
    quantized = QuantizeOp.build([y, *q.operands[1:]], _attributes(q), quantized_type)
    attributes = {**_attributes(op), "padding": ir.DenseI64ArrayAttr.get(padding)}
    moved = QConv2dOp.build([quantized, *op.operands[1:]], attributes, op.results[0].type)
    rewriter.replace_op(op, [moved])
    return True


def _attributes(op: ir.OpView) -> dict[str, ir.Attribute]:
    return dict(op.operation.attributes.items())


PATTERNS = [(PadOp, identity_pad), (QConv2dOp, fold_padding)]
