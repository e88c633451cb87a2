"""Quantize-dequantize (QDQ) contractions as integer ones: the form PT2E's `convert_pt2e` gives
(and ONNX QDQ models, through torch-mlir), a float op between dequantizes and a quantize,

    %x = dequantize(%xq, sx, zx)                    per tensor
    %w = dequantize(W, sw, zw)                      a constant W, per output channel or tensor
    %y = conv2d(%x, %w) | matmul(%x, transpose(%w)) | matmul(%x, %w)
  → fold_contraction
    %a = qconv2d(%xq, W, zx, zw) | qmatmul(%xq, Wᵀ, zx, zw)     i32, exact
    %y = cast(%a) · f32(sx·sw)                                  the float epilogue, per channel

    %q = quantize(clamp(relu(%y + b) · c), s, zq)   any of clamp, relu, · c (c > 0), + b
  → fold_requantize
    %q = requantize(%a + rint(b / (sx·sw)), f32(sx·sw·c / s), zq, min, max)

so the weights stay 8-bit constants and the contraction runs on integers. ReLU and clamps become
requantize's bounds (exact: rint is monotone, so rounding commutes with a clamp once the bounds
are rounded the same way). Not exact, as ONNX's QLinearConv and torchao's reference
representation define it too: the bias is rounded to the accumulator's unit sx·sw[c] (by at most
half of it) and the multiplier to f32, where the float program rounds each product and sum
instead; a quantized result can differ by one step where its float value lies that close to a
rounding midpoint. Without a quantize after it, the float epilogue stays: the exact integer sum
times f32(sx·sw), rounded once (and by the cast above 2^24).

Refused (the float program stays): parameters that are not constants, a per-channel input,
weight zero points that differ per channel (qconv2d/qmatmul take one), a matmul with dynamic
dims (a conv's dynamic batch, H and W fold: qconv2d lowers them as conv2d does), a
weight that is not a rank-2 matrix (matmul) or a channel layout the scales do not follow,
non-positive scales, and a bias that overflows i32. The torch frontend applies these patterns
after conversion (`frontends/torch/convert.py`), before versa-layout moves convolutions to
another layout.
"""

import numpy as np
from versa.dialects import builders as vb
from versa.dialects.ops_quant import TYPE_RANGES
from versa.dialects.versa import OPS, Conv2dOp, MatmulOp, QConv2dOp, QMatmulOp, QuantizeOp
from versa.mlir import ir, rewrite

from ...common.matching import constant_array, is_numpy_constant, producer, splat_value
from ...common.rewrite import apply_greedily
from . import quantized_pads

Rewriter = rewrite.PatternRewriter
_NUMPY = {"i8": np.int8, "ui8": np.uint8}
_BIAS_LIMIT = 1 << 30  # |bias| in accumulator units: the sum with it stays within i32


def _static(*values: ir.Value) -> bool:
    return all(ir.RankedTensorType(v.type).has_static_shape for v in values)


def _constant(value: ir.Value) -> np.ndarray | None:
    """A constant's array, also through a reshape (the torch rules reshape biases)."""
    reshaped = producer(value, "versa.reshape")
    array = constant_array(reshaped.operands[0] if reshaped is not None else value)
    return None if array is None else array.reshape(ir.RankedTensorType(value.type).shape)


def _channels(value: ir.Value, rank: int) -> tuple[int | None, np.ndarray] | None:
    """(dim, vector) of a constant that broadcasts against a rank-`rank` result and varies
    along one dim at most (None and a 1-element vector: one value for every channel)."""
    array = _constant(value)
    if array is None or array.ndim > rank:
        return None
    shape = (1,) * (rank - array.ndim) + array.shape
    varying = [i for i, d in enumerate(shape) if d != 1]
    if len(varying) > 1:
        return None
    return (varying[0] if varying else None), array.astype(np.float64).reshape(-1)


def _affine(dequantize: ir.OpView | None) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(scale, zero point, axis) of a dequantize with constant parameters."""
    if dequantize is None:
        return None
    scale, zero = constant_array(dequantize.operands[1]), constant_array(dequantize.operands[2])
    if scale is None or zero is None or not np.all(scale > 0):
        return None
    return scale.astype(np.float64), zero.astype(np.int64), OPS["versa.dequantize"].attrs(dequantize)["axis"]


def _weights(value: ir.Value, out_dim: int) -> tuple[ir.Value, np.ndarray, np.ndarray, int] | None:
    """(W, its scales, its one zero point, W's rank) when `value` dequantizes a constant W per
    tensor or along its output-channel dim `out_dim`."""
    dq = producer(value, "versa.dequantize")
    found = _affine(dq)
    if found is None or not is_numpy_constant(dq.operands[0]):
        return None
    scale, zero, axis = found
    rank = ir.RankedTensorType(value.type).rank
    if (scale.ndim and axis % rank != out_dim % rank) or np.unique(zero).size != 1:
        return None
    return dq.operands[0], scale, zero.reshape(-1)[:1].reshape(()), rank


def _input(value: ir.Value) -> tuple[ir.Value, ir.Value, float] | None:
    """(x_q, its zero point operand, its scale) of a per-tensor dequantize."""
    dq = producer(value, "versa.dequantize")
    found = _affine(dq)
    if found is None or found[0].ndim:
        return None
    return dq.operands[0], dq.operands[2], float(found[0])


def _zero(w: ir.Value, zero: np.ndarray) -> ir.Value:
    return vb.constant(zero.astype(_NUMPY[str(w.type.element_type)]))


def fold_contraction(op: ir.OpView, rewriter: Rewriter) -> bool:
    """conv2d / matmul of dequantized operands → qconv2d / qmatmul and the float epilogue."""
    y = op.results[0]
    x = _input(op.operands[0])
    if x is None or (op.operation.name == "versa.matmul" and not _static(*op.operands, y)):
        return False  # qmatmul's lowering folds static rows only; qconv2d sizes dynamic dims
    i32 = ir.RankedTensorType.get(list(y.type.shape), ir.IntegerType.get_signless(32))
    if op.operation.name == "versa.conv2d":
        layout = Conv2dOp.attrs(op)["layout"]
        out_dim, filter_dim = (1, 0) if layout == "NCHW" else (3, 3)
        w = _weights(op.operands[1], filter_dim)
        if w is None:
            return False
        attrs = dict(op.operation.attributes.items())
        acc = QConv2dOp.build([x[0], w[0], x[1], _zero(w[0], w[2])], attrs, i32)
    else:
        w, out_dim = _matrix(op.operands[1]), y.type.rank - 1
        if w is None:
            return False
        acc = QMatmulOp.build([x[0], w[0], x[1], _zero(w[0], w[2])], {}, i32)
    scale = (x[2] * w[1]).astype(np.float32)  # in f64, rounded once
    shape = [scale.size if i == out_dim else 1 for i in range(y.type.rank)] if scale.ndim else []
    scaled = vb.mul(vb.cast(acc, ir.F32Type.get()), vb.constant(scale.reshape(shape)))
    rewriter.replace_op(op, [scaled])
    return True


def _matrix(value: ir.Value) -> tuple[ir.Value, np.ndarray, np.ndarray] | None:
    """(W [K, N] as a constant, scales along N, zero point) of a matmul's right operand:
    dequantize(W) with scales along N, or transpose(dequantize(Wᵀ)) (torch's linear)."""
    transposed = producer(value, "versa.transpose")
    if transposed is not None:
        if OPS["versa.transpose"].attrs(transposed)["perm"] != [1, 0]:
            return None
        w = _weights(transposed.operands[0], 0)
        if w is None or w[3] != 2:
            return None
        flipped = np.ascontiguousarray(constant_array(w[0]).T)
        return vb.constant(flipped.astype(_NUMPY[str(w[0].type.element_type)])), w[1], w[2]
    w = _weights(value, 1)
    return None if w is None or w[3] != 2 else w[:3]


def _bound(limit: float | None, inv: float, zero: int) -> int | None:
    """A clamp bound on a value scaled by `inv` before rounding, as a quantized bound."""
    return None if limit is None else int(np.rint(limit * inv)) + zero


def fold_requantize(op: ir.OpView, rewriter: Rewriter) -> bool:
    """quantize of the float epilogue (through clamp, relu, · c, + b) → requantize (module doc)."""
    scale, zero = constant_array(op.operands[1]), constant_array(op.operands[2])
    if scale is None or zero is None or scale.ndim or zero.ndim or not scale > 0:
        return False
    elem = str(op.results[0].type.element_type)
    low, high = TYPE_RANGES[elem]
    zq, inv, value = int(zero), 1.0 / float(scale), op.operands[0]
    found = _epilogue(value)
    while found is None and isinstance(value, ir.OpResult):  # the ops after it, outermost first
        inner, name = value.owner, value.owner.operation.name  # `inv` scales what is inside
        factor = _positive_factor(inner) if name == "versa.mul" else None
        if name == "versa.clamp":
            bounds = OPS[name].attrs(inner)
            lo, hi = _bound(bounds["min"], inv, zq), _bound(bounds["max"], inv, zq)
            low, high = max(low, low if lo is None else lo), min(high, high if hi is None else hi)
        elif name == "versa.relu":
            low = max(low, zq)
        elif factor is not None:
            inv *= factor[0]
        else:
            return False
        value = factor[1] if factor is not None else inner.operands[0]
        found = _epilogue(value)
    if found is None or low > high:
        return False
    acc, dim, scales, bias = found
    multiplier = (scales * inv).astype(np.float32)
    if not np.all(np.isfinite(multiplier) & (multiplier > 0)):
        return False
    if bias is not None:
        acc = vb.add(acc, vb.constant(bias.reshape(_along(acc, dim, bias.size))))
    per_channel = dim is not None and multiplier.size > 1
    m = multiplier if per_channel else multiplier.reshape(-1)[:1].reshape(())
    z = np.full(m.shape, zq, _NUMPY[elem])
    q = vb.requantize(
        acc,
        vb.constant(m),
        vb.constant(z),
        axis=dim if per_channel else None,
        min=low if low != TYPE_RANGES[elem][0] else None,
        max=high if high != TYPE_RANGES[elem][1] else None,
    )
    rewriter.replace_op(op, [q])
    return True


def _positive_factor(mul: ir.OpView) -> tuple[float, ir.Value] | None:
    """(c, x) of a `versa.mul` of x by a positive splat c that keeps x's type."""
    for value, other in (mul.operands, reversed(list(mul.operands))):
        c = splat_value(value)
        if c is not None and c > 0 and other.type == mul.results[0].type:
            return float(c), other
    return None


def _along(acc: ir.Value, dim: int | None, size: int) -> list[int]:
    rank = ir.RankedTensorType(acc.type).rank
    return [size if i == dim else 1 for i in range(rank)] if dim is not None else []


def _epilogue(value: ir.Value) -> tuple[ir.Value, int | None, np.ndarray, np.ndarray | None] | None:
    """(i32 accumulator, channel dim, scales, bias in accumulator units) of `value` =
    cast(acc) · scales [+ bias], per channel along one dim or per tensor."""
    rank = ir.RankedTensorType(value.type).rank
    bias, add = None, producer(value, "versa.add")
    if add is not None:
        for inner, other in (add.operands, reversed(list(add.operands))):
            found = _channels(other, rank)
            if found is not None and inner.type == value.type and producer(inner, "versa.mul") is not None:
                bias, value = found, inner
                break
        else:
            return None
    mul = producer(value, "versa.mul")
    if mul is None:
        return None
    for inner, other in (mul.operands, reversed(list(mul.operands))):
        cast, scales = producer(inner, "versa.cast"), _channels(other, rank)
        if cast is None or scales is None or inner.type != value.type:
            continue
        acc = cast.operands[0]
        if str(acc.type.element_type) != "i32" or not np.all(scales[1] > 0):
            return None
        dims = {d for d, _ in (scales, bias or scales) if d is not None}
        if len(dims) > 1:
            return None
        dim = dims.pop() if dims else None
        size = max(scales[1].size, bias[1].size if bias else 1)
        s = np.broadcast_to(scales[1], (size,))
        if bias is None:
            return acc, dim, s, None
        units = np.rint(np.broadcast_to(bias[1], (size,)) / s)
        if not np.all(np.abs(units) < _BIAS_LIMIT):
            return None
        return acc, dim, s, units.astype(np.int32)
    return None


PATTERNS = [
    (Conv2dOp, fold_contraction),
    (MatmulOp, fold_contraction),
    (QuantizeOp, fold_requantize),
    *quantized_pads.PATTERNS,  # explicit pads into the qconv2d's padding (quantized_pads.py)
]


def fold_quantized(module: ir.Operation) -> None:
    """Apply PATTERNS to `module` where it dequantizes anything; other modules stay untouched
    (the greedy driver would also fold and erase ops elsewhere)."""
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "versa.dequantize":
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    if found:
        with module.context:
            apply_greedily(module, PATTERNS)
