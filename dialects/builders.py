"""Snake_case builders of the versa ops: Python values in, the result `ir.Value` out.

Each builder converts its Python arguments to the builtin attributes the op's `ATTRS` expect
(lists -> `array<i64: ...>`, ints -> `i64`, floats -> `f32`, bools, strings), leaves out
arguments given as None so the op's defaults apply, and calls `XOp.build`, which derives the
result type from the op's shape rule. A rule that rejects the operands raises `RuleError` here,
before any op is created:

    from versa.dialects import builders as vb
    with ir.InsertionPoint(block):
        y = vb.conv2d(x, w, padding=[1, 1, 1, 1], layout="NHWC")    # tensor<1x8x8x4xf32>
        z = vb.softmax(vb.matmul(vb.reshape(y, [1, 256]), fc), axis=-1)

`max`, `min`, `pow`, `abs`, `round` and `slice` shadow Python builtins: import the module, not the names.
"""

from collections.abc import Sequence

import numpy as np
from versa.mlir import ir

from . import versa as v
from .build_support import Ints, Ip, Loc, conv2d_attrs
from .build_support import attrs as _attrs
from .build_support import binary as _binary
from .build_support import boolean as _bool
from .build_support import f32 as _f32
from .build_support import i64 as _i64
from .build_support import ints as _ints
from .build_support import string as _str
from .build_support import unary as _unary
from .build_support import with_shape as _with_shape

# The builders of compare, select, logic, gather, scatter, iota, argmax, cumsum and conv_transpose2d
# live in builders_indexing.py and are re-exported here: `vb.gather(...)` like every builder.
from .builders_indexing import (  # noqa: F401
    compare,
    conv_transpose2d,
    cumsum,
    gather,
    iota,
    iota_like,
    logical_and,
    logical_not,
    logical_or,
    reduce_argmax,
    scatter,
    select,
)

# sin, cos, tan, atan, log1p, expm1, floor, ceil, round, trunc and sign: builders_math.py.
from .builders_math import atan, ceil, cos, expm1, floor, log1p, round, sign, sin, tan, trunc  # noqa: F401

# quantize, dequantize, requantize, qmatmul and qconv2d: builders_quant.py.
from .builders_quant import dequantize, qconv2d, qmatmul, quantize, requantize  # noqa: F401

# ----------------------------------------------------------------------------- elementwise


def add(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.add`: lhs + rhs, NumPy broadcasting."""
    return _binary(v.AddOp, lhs, rhs, loc, ip)


def sub(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.sub`: lhs - rhs, NumPy broadcasting."""
    return _binary(v.SubOp, lhs, rhs, loc, ip)


def mul(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.mul`: lhs * rhs, NumPy broadcasting."""
    return _binary(v.MulOp, lhs, rhs, loc, ip)


def div(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.div`: lhs / rhs, NumPy broadcasting."""
    return _binary(v.DivOp, lhs, rhs, loc, ip)


def max(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.max`: the elementwise maximum, NumPy broadcasting."""
    return _binary(v.MaxOp, lhs, rhs, loc, ip)


def min(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.min`: the elementwise minimum, NumPy broadcasting."""
    return _binary(v.MinOp, lhs, rhs, loc, ip)


def pow(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.pow`: lhs ** rhs (floats), NumPy broadcasting."""
    return _binary(v.PowOp, lhs, rhs, loc, ip)


def neg(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.neg`: -x."""
    return _unary(v.NegOp, x, loc, ip)


def abs(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.abs`: |x|."""
    return _unary(v.AbsOp, x, loc, ip)


def exp(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.exp`: e ** x."""
    return _unary(v.ExpOp, x, loc, ip)


def log(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.log`: the natural logarithm."""
    return _unary(v.LogOp, x, loc, ip)


def sqrt(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.sqrt`: the square root."""
    return _unary(v.SqrtOp, x, loc, ip)


def rsqrt(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.rsqrt`: 1 / sqrt(x)."""
    return _unary(v.RsqrtOp, x, loc, ip)


def tanh(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.tanh`: the hyperbolic tangent."""
    return _unary(v.TanhOp, x, loc, ip)


def sigmoid(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.sigmoid`: 1 / (1 + e ** -x)."""
    return _unary(v.SigmoidOp, x, loc, ip)


def relu(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.relu`: max(x, 0)."""
    return _unary(v.ReluOp, x, loc, ip)


def erf(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.erf`: the Gauss error function."""
    return _unary(v.ErfOp, x, loc, ip)


def gelu(x: ir.Value, *, approximate: str | None = None, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.gelu`: exact ("none", the default) or "tanh"-approximated GELU."""
    return v.GeluOp.build([x], _attrs(approximate=_str(approximate)), loc=loc, ip=ip)


def clamp(
    x: ir.Value, *, min: float | None = None, max: float | None = None, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.clamp`: x limited to [min, max]; an omitted bound does not limit."""
    return v.ClampOp.build([x], _attrs(min=_f32(min), max=_f32(max)), loc=loc, ip=ip)


def cast(x: ir.Value, element_type: ir.Type, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.cast`: x converted to `element_type`, same shape."""
    result_type = ir.RankedTensorType.get(x.type.shape, element_type)
    return v.CastOp.build([x], {}, result_type, loc=loc, ip=ip)


# ----------------------------------------------------------------------------- structured


def constant(array: np.ndarray, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.constant`: a tensor holding `array` (its shape, rank 0 included, and element type)."""
    # Not np.ascontiguousarray: it turns a 0-d array into shape (1,). The explicit shape keeps
    # the rank whatever the bindings infer from the buffer.
    data = np.asarray(array, order="C")
    unsigned = data.dtype.kind == "u"  # uint8 → ui8 (the quantized ops' bytes), not i8
    value = ir.DenseElementsAttr.get(data, signless=not unsigned, shape=list(data.shape))
    return v.ConstantOp.build([], {"value": value}, value.type, loc=loc, ip=ip)


def matmul(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.matmul`: [..., M, K] x [..., K, N] -> [..., M, N], batch dims broadcast."""
    return _binary(v.MatmulOp, lhs, rhs, loc, ip)


def conv2d(
    x: ir.Value,
    w: ir.Value,
    *,
    strides: Ints | None = None,
    padding: Ints | None = None,
    dilations: Ints | None = None,
    groups: int | None = None,
    layout: str | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.conv2d`: NCHW x FCHW or NHWC x HWCF; padding is [top, left, bottom, right]."""
    attrs = conv2d_attrs(strides, padding, dilations, groups, layout)
    return v.Conv2dOp.build([x, w], attrs, loc=loc, ip=ip)


def max_pool2d(
    x: ir.Value,
    *,
    kernel: Ints,
    strides: Ints | None = None,
    padding: Ints | None = None,
    layout: str | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.max_pool2d`: the maximum over each `kernel` window."""
    attrs = _attrs(kernel=_ints(kernel), strides=_ints(strides), padding=_ints(padding), layout=_str(layout))
    return v.MaxPool2dOp.build([x], attrs, loc=loc, ip=ip)


def avg_pool2d(
    x: ir.Value,
    *,
    kernel: Ints,
    strides: Ints | None = None,
    padding: Ints | None = None,
    layout: str | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.avg_pool2d`: the mean over each `kernel` window."""
    attrs = _attrs(kernel=_ints(kernel), strides=_ints(strides), padding=_ints(padding), layout=_str(layout))
    return v.AvgPool2dOp.build([x], attrs, loc=loc, ip=ip)


def reduce_sum(
    x: ir.Value, *, axes: Ints, keepdims: bool | None = None, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.reduce_sum`: the sum over `axes`."""
    attrs = _attrs(axes=_ints(axes), keepdims=_bool(keepdims))
    return v.ReduceSumOp.build([x], attrs, loc=loc, ip=ip)


def reduce_max(
    x: ir.Value, *, axes: Ints, keepdims: bool | None = None, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.reduce_max`: the maximum over `axes`."""
    attrs = _attrs(axes=_ints(axes), keepdims=_bool(keepdims))
    return v.ReduceMaxOp.build([x], attrs, loc=loc, ip=ip)


def reduce_mean(
    x: ir.Value, *, axes: Ints, keepdims: bool | None = None, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.reduce_mean`: the mean over `axes`."""
    attrs = _attrs(axes=_ints(axes), keepdims=_bool(keepdims))
    return v.ReduceMeanOp.build([x], attrs, loc=loc, ip=ip)


def softmax(x: ir.Value, *, axis: int, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.softmax`: exp(x) normalised to sum 1 along `axis`."""
    return v.SoftmaxOp.build([x], _attrs(axis=_i64(axis)), loc=loc, ip=ip)


def layer_norm(
    x: ir.Value, gamma: ir.Value, beta: ir.Value, *, axis: int, epsilon: float, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.layer_norm`: normalise over dims `axis`.., then scale by gamma and shift by beta."""
    attrs = _attrs(axis=_i64(axis), epsilon=_f32(epsilon))
    return v.LayerNormOp.build([x, gamma, beta], attrs, loc=loc, ip=ip)


def batch_norm(
    x: ir.Value,
    scale: ir.Value,
    bias: ir.Value,
    mean: ir.Value,
    variance: ir.Value,
    *,
    epsilon: float,
    layout: str | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.batch_norm`: inference batch norm with per-channel statistics."""
    attrs = _attrs(epsilon=_f32(epsilon), layout=_str(layout))
    return v.BatchNormOp.build([x, scale, bias, mean, variance], attrs, loc=loc, ip=ip)


def transpose(x: ir.Value, *, perm: Ints, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.transpose`: result dim i is input dim perm[i]."""
    return v.TransposeOp.build([x], _attrs(perm=_ints(perm)), loc=loc, ip=ip)


def reshape(x: ir.Value, shape: Ints, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.reshape`: the same elements, row-major, in `shape`."""
    return _with_shape(v.ReshapeOp, x, shape, loc, ip)


def broadcast_to(x: ir.Value, shape: Ints, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.broadcast_to`: x broadcast (NumPy rules) to `shape`."""
    return _with_shape(v.BroadcastToOp, x, shape, loc, ip)


def concat(inputs: Sequence[ir.Value], *, axis: int, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.concat`: `inputs` (any sizes along `axis`) joined along `axis`.

    One op takes a first input and then inputs of one type (IRDL unifies a variadic operand's
    types); other lists become a chain: each op joins the result so far with the longest run of
    following inputs that share a type."""
    joined, rest = inputs[0], list(inputs[1:])
    while rest:
        run = 1
        while run < len(rest) and rest[run].type == rest[0].type:
            run += 1
        joined = v.ConcatOp.build([joined, *rest[:run]], _attrs(axis=_i64(axis)), loc=loc, ip=ip)
        rest = rest[run:]
    return joined


def slice(
    x: ir.Value,
    *,
    starts: Ints,
    limits: Ints,
    strides: Ints | None = None,
    from_end: Ints | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.slice`: x[starts:limits:strides] per dim (`from_end`: SliceOp's flags)."""
    attrs = _attrs(
        starts=_ints(starts), limits=_ints(limits), strides=_ints(strides), from_end=_ints(from_end)
    )
    return v.SliceOp.build([x], attrs, loc=loc, ip=ip)


def pad(
    x: ir.Value, *, low: Ints, high: Ints, value: float | None = None, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.pad`: x with `low`/`high` elements of `value` (default 0.0) added per dim."""
    attrs = _attrs(low=_ints(low), high=_ints(high), value=_f32(value))
    return v.PadOp.build([x], attrs, loc=loc, ip=ip)
