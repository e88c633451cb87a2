"""Fold inference batch norm into the convolution or matmul before it (versa-canonicalize).

    %y = conv2d(%x, W)                         %y = conv2d(%x, W·s)
    %z = add(%y, b)                    →       %o = add(%y, (b − μ)·s + β)
    %o = batch_norm(%z, γ, β, μ, σ²)           with s = γ / sqrt(σ² + ε), per output channel

W is scaled along its output-channel dim (NCHW: W[f, ...]; NHWC: W[..., f]), so any groups,
strides, dilations and padding fold alike; the folded bias broadcasts along the result's
channel dim. `versa.batch_norm` takes rank-4 input only, so BatchNorm1d after a 2-D matmul
reaches versa spelled out, as the torch frontend writes it: add(mul(sub(y, μ), k), β) with
per-column constants; that chain folds the same way into the constant B of [M,K]x[K,N] (s = k),
and after a conv too.

Refused: non-constant weights or parameters, a conv (or bias add) with another user (its
unscaled result is still needed: folding would compute the contraction twice), a batch norm
whose channel dim is not the conv's output-channel dim, and folded values that are not finite
(σ² + ε ≤ 0, overflow), where inf and NaN would land elsewhere than in the unfolded program.
The new weights are computed in float64 and rounded once to the element type, so the result
differs from the unfolded one by rounding (~1e-6 relative to the output's RMS in f32).
There is no FOLD_LIMIT here: the scaled weight replaces a constant of the same size, which
becomes dead unless something else shares it.
"""

import numpy as np
from versa.dialects.versa import OPS, AddOp, BatchNormOp, Conv2dOp
from versa.mlir import ir, rewrite

from ...common.matching import (
    constant,
    constant_array,
    has_one_use,
    is_numpy_constant,
    numpy_dtype_of,
    producer,
)

Rewriter = rewrite.PatternRewriter
# The output-channel dim of (the result, the weight) of each contraction that folds.
_CHANNEL_DIMS = {"NCHW": (1, 0), "NHWC": (3, 3), "matmul": (1, 1)}
_BATCH_NORM_CHANNEL_DIM = {"NCHW": 1, "NHWC": 3}


def _channel_dims(op: ir.OpView) -> tuple[int, int]:
    if op.operation.name == "versa.matmul":
        return _CHANNEL_DIMS["matmul"]
    return _CHANNEL_DIMS[Conv2dOp.attrs(op)["layout"]]


def _channel_vector(value: ir.Value, rank: int, dim: int, channels: int) -> np.ndarray | None:
    """The [channels] float64 vector of a constant that varies along `dim` of a rank-`rank`
    result only ([1, F, 1, 1], [F, 1, 1] or a scalar for dim 1 of rank 4), else None."""
    array = constant_array(value)
    if array is None or array.ndim > rank:
        return None
    shape = (1,) * (rank - array.ndim) + array.shape
    if any(d != 1 for i, d in enumerate(shape) if i != dim) or shape[dim] not in (1, channels):
        return None
    return np.broadcast_to(array.astype(np.float64).reshape(-1), (channels,))


def _contraction_op(value: ir.Value) -> ir.OpView | None:
    """The conv2d or 2-D matmul that makes `value` with constant weights and no other user."""
    op = producer(value, "versa.conv2d")
    if op is None:
        op = producer(value, "versa.matmul")
        if op is None or any(v.type.rank != 2 for v in (*op.operands, value)):
            return None
    return op if is_numpy_constant(op.operands[1]) and has_one_use(value) else None


def _contraction(value: ir.Value) -> tuple[ir.OpView, np.ndarray] | None:
    """(contraction, its per-channel bias) when `value` is a foldable contraction, optionally
    plus a per-channel constant bias add that has no other user."""
    op = _contraction_op(value)
    if op is not None:
        return op, np.zeros(value.type.shape[_channel_dims(op)[0]])
    bias_add = producer(value, "versa.add")
    if bias_add is None or not has_one_use(value):
        return None
    for y, other in (bias_add.operands, reversed(list(bias_add.operands))):
        op = _contraction_op(y)
        if op is None or y.type != value.type:
            continue
        dim = _channel_dims(op)[0]
        bias = _channel_vector(other, y.type.rank, dim, y.type.shape[dim])
        return None if bias is None else (op, bias)
    return None


def _fold(
    root: ir.OpView,
    op: ir.OpView,
    bias: np.ndarray,
    affine: tuple[np.ndarray, np.ndarray, np.ndarray],
    rewriter: Rewriter,
) -> bool:
    """Replace `root` = ((op + bias) − μ)·s + β by op(x, W·s) + ((bias − μ)·s + β), unless a
    folded value is not finite in the element type (σ² + ε ≤ 0, an overflow): then the unfolded
    program's inf and NaN would differ from the folded one's."""
    mean, scale, shift = affine
    out_dim, weight_dim = _channel_dims(op)
    weight = op.operands[1]
    dtype = numpy_dtype_of(weight.type.element_type)
    along_weight = [-1 if i == weight_dim else 1 for i in range(weight.type.rank)]
    with np.errstate(all="ignore"):
        scaled = (constant_array(weight).astype(np.float64) * scale.reshape(along_weight)).astype(dtype)
        folded_bias = ((bias - mean) * scale + shift).astype(dtype)
    if not (np.isfinite(scaled).all() and np.isfinite(folded_bias).all()):
        return False
    attrs = dict(op.operation.attributes.items())
    y_type = op.results[0].type
    # The folded op is both source ops: its location says so (the profile names layers by it).
    with ir.Location.fused([op.operation.location, root.operation.location]):
        y = OPS[op.operation.name].build([op.operands[0], constant(scaled, weight.type)], attrs, y_type)
        along_result = [len(scale) if i == out_dim else 1 for i in range(y_type.rank)]
        bias_type = ir.RankedTensorType.get(along_result, y_type.element_type)
        bias_value = constant(folded_bias.reshape(along_result), bias_type)
        rewriter.replace_op(root, [AddOp.build([y, bias_value], {}, root.results[0].type)])
    return True


def fold_batch_norm(op: ir.OpView, rewriter: Rewriter) -> bool:
    """batch_norm(conv2d(x, W) [+ b], γ, β, μ, σ²) → conv2d(x, W·s) + ((b − μ)·s + β)."""
    found = _contraction(op.operands[0])
    params = [constant_array(v) for v in op.operands[1:]]
    if found is None or any(p is None for p in params):
        return False
    contraction, bias = found
    attrs = BatchNormOp.attrs(op)
    if _channel_dims(contraction)[0] != _BATCH_NORM_CHANNEL_DIM[attrs["layout"]]:
        return False
    gamma, beta, mean, var = (p.astype(np.float64) for p in params)
    with np.errstate(all="ignore"):
        scale = gamma / np.sqrt(var + attrs["epsilon"])
    return _fold(op, contraction, bias, (mean, scale, beta), rewriter)


def _single_use_operand(op: ir.OpView, name: str) -> tuple[ir.OpView, ir.Value] | None:
    """(the single-use `name` op making one operand of the binary `op`, the other operand)."""
    for value, other in (op.operands, reversed(list(op.operands))):
        inner = producer(value, name)
        if inner is not None and has_one_use(value) and value.type == op.results[0].type:
            return inner, other
    return None


def fold_batch_norm_1d(op: ir.OpView, rewriter: Rewriter) -> bool:
    """add(mul(sub(y, μ), k), β) with y = contraction(x, W) [+ b] → contraction(x, W·k) + ((b − μ)·k + β)."""
    scaled = _single_use_operand(op, "versa.mul")
    centred = scaled and _single_use_operand(scaled[0], "versa.sub")
    if not centred or centred[0].operands[0].type != op.results[0].type:
        return False
    y, mean = centred[0].operands
    found = _contraction(y)
    if found is None:
        return False
    dim = _channel_dims(found[0])[0]
    channels = y.type.shape[dim]
    affine = [_channel_vector(v, y.type.rank, dim, channels) for v in (mean, centred[1], scaled[1])]
    if any(v is None for v in affine):
        return False
    return _fold(op, found[0], found[1], tuple(affine), rewriter)


PATTERNS = [(BatchNormOp, fold_batch_norm), (AddOp, fold_batch_norm_1d)]
