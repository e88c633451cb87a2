"""Elementwise torch ops: arithmetic with scalars and promotion, activations, comparisons, casts.

Activations versa has no op for are compositions chosen to stay exact and overflow-free
(softplus as max(x, 0) + log(1 + exp(-|x|)), hardswish as x * clamp(x + 3, 0, 6) / 6).
"""

import math

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import as_tensor, common_element, element, promoted, unary_rule

# ----------------------------------------------------------------------------- arithmetic


@rule("torch.aten.add.Tensor", "torch.aten.add.Scalar", dynamic=True)
def add(node: Node, a, b, alpha=1):
    a, b = promoted(node, a, b)
    return vb.add(a, b if alpha == 1 else vb.mul(b, node.constant(alpha)))


@rule("torch.aten.sub.Tensor", "torch.aten.sub.Scalar", dynamic=True)
def sub(node: Node, a, b, alpha=1):
    a, b = promoted(node, a, b)
    return vb.sub(a, b if alpha == 1 else vb.mul(b, node.constant(alpha)))


@rule("torch.aten.rsub.Scalar", "torch.aten.rsub.Tensor", dynamic=True)
def rsub(node: Node, a, b, alpha=1):
    a, b = promoted(node, a, b)
    return vb.sub(b, a if alpha == 1 else vb.mul(a, node.constant(alpha)))


@rule("torch.aten.mul.Tensor", "torch.aten.mul.Scalar", dynamic=True)
def mul(node: Node, a, b):
    return vb.mul(*promoted(node, a, b))


@rule("torch.aten.div.Tensor", "torch.aten.div.Scalar", dynamic=True)
def div(node: Node, a, b):
    return vb.div(*promoted(node, a, b))


@rule("torch.aten.pow.Tensor_Scalar", dynamic=True)
def pow_scalar(node: Node, x, exponent):
    (x,) = promoted(node, x)
    if exponent == 1:
        return x
    if exponent == 2:
        return vb.mul(x, x)
    if exponent == 0.5:
        return vb.sqrt(x)
    if exponent == -0.5:
        return vb.rsqrt(x)
    return vb.pow(x, node.constant(exponent))


@rule("torch.aten.pow.Tensor_Tensor", "torch.aten.pow.Scalar", dynamic=True)
def pow_(node: Node, a, b):
    return vb.pow(*promoted(node, a, b))


@rule("torch.aten.maximum", dynamic=True)
def maximum(node: Node, a, b):
    return vb.max(*promoted(node, a, b))


@rule("torch.aten.minimum", dynamic=True)
def minimum(node: Node, a, b):
    return vb.min(*promoted(node, a, b))


@rule("torch.aten.reciprocal", dynamic=True)
def reciprocal(node: Node, x):
    (x,) = promoted(node, x)
    return vb.div(node.constant(1.0), x)


@rule("torch.aten.square", dynamic=True)
def square(node: Node, x):
    (x,) = promoted(node, x)
    return vb.mul(x, x)


for _name, _build in {
    "neg": vb.neg,
    "abs": vb.abs,
    "exp": vb.exp,
    "log": vb.log,
    "sqrt": vb.sqrt,
    "rsqrt": vb.rsqrt,
    "tanh": vb.tanh,
    "sigmoid": vb.sigmoid,
    "relu": vb.relu,
    "erf": vb.erf,
}.items():
    unary_rule(_name, _build)


# ----------------------------------------------------------------------------- activations


@rule("torch.aten.gelu", dynamic=True)
def gelu(node: Node, x, approximate="none"):
    return vb.gelu(x, approximate=approximate)


@rule("torch.aten.clamp", "torch.aten.clip", dynamic=True)
def clamp(node: Node, x, lo=None, hi=None):
    (x,) = promoted(node, x)
    if element(x) not in ("f32", "f16", "bf16"):
        out = x if lo is None else vb.max(x, node.constant(lo))
        return out if hi is None else vb.min(out, node.constant(hi))
    return vb.clamp(x, min=lo, max=hi)


@rule("torch.aten.clamp.Tensor")
def clamp_tensor(node: Node, x, lo=None, hi=None):
    out = promoted(node, x)[0]
    out = out if lo is None else vb.max(out, as_tensor(node, lo, node.out.element))
    return out if hi is None else vb.min(out, as_tensor(node, hi, node.out.element))


@rule("torch.aten.clamp_min", dynamic=True)
def clamp_min(node: Node, x, lo):
    return clamp(node, x, lo, None)


@rule("torch.aten.clamp_max", dynamic=True)
def clamp_max(node: Node, x, hi):
    return clamp(node, x, None, hi)


@rule("torch.aten.hardtanh", dynamic=True)
def hardtanh(node: Node, x, lo=-1.0, hi=1.0):
    return vb.clamp(x, min=lo, max=hi)


@rule("torch.aten.relu6", dynamic=True)
def relu6(node: Node, x):
    return vb.clamp(x, min=0.0, max=6.0)


@rule("torch.aten.silu", dynamic=True)
def silu(node: Node, x):
    return vb.mul(x, vb.sigmoid(x))


@rule("torch.aten.hardsigmoid", dynamic=True)
def hardsigmoid(node: Node, x):
    return vb.mul(vb.clamp(vb.add(x, node.constant(3.0)), min=0.0, max=6.0), node.constant(1.0 / 6.0))


@rule("torch.aten.hardswish", dynamic=True)
def hardswish(node: Node, x):
    return vb.mul(x, hardsigmoid(node, x))


def _softplus(node: Node, x: ir.Value) -> ir.Value:
    """log(1 + exp(x)) as max(x, 0) + log(1 + exp(-|x|)): no overflow for large x."""
    tail = vb.log(vb.add(node.constant(1.0), vb.exp(vb.neg(vb.abs(x)))))
    return vb.add(vb.relu(x), tail)


@rule("torch.aten.softplus")
def softplus(node: Node, x, beta=1.0, threshold=20.0):
    """x itself where beta·x > threshold, as torch (not only an overflow guard: threshold=3 shows)."""
    scaled = x if beta == 1.0 else vb.mul(x, node.constant(beta))
    smooth = _softplus(node, scaled) if beta == 1.0 else vb.div(_softplus(node, scaled), node.constant(beta))
    return vb.select(vb.compare(scaled, node.constant(threshold), predicate="gt"), x, smooth)


@rule("torch.aten.mish")
def mish(node: Node, x):
    return vb.mul(x, vb.tanh(_softplus(node, x)))


@rule("torch.aten.leaky_relu", dynamic=True)
def leaky_relu(node: Node, x, slope=0.01):
    if 0.0 <= slope <= 1.0:  # max(x, slope x) is exact there
        return vb.max(x, vb.mul(x, node.constant(slope)))
    return vb.add(vb.relu(x), vb.mul(vb.min(x, node.constant(0.0)), node.constant(slope)))


@rule("torch.aten.elu")
def elu(node: Node, x, alpha=1.0, scale=1.0, input_scale=1.0):
    negative = vb.min(vb.mul(x, node.constant(input_scale)), node.constant(0.0))
    tail = vb.mul(vb.sub(vb.exp(negative), node.constant(1.0)), node.constant(alpha))
    return vb.mul(vb.add(vb.relu(x), tail), node.constant(scale))


@rule("torch.aten.log_sigmoid")
def log_sigmoid(node: Node, x):
    return vb.neg(_softplus(node, vb.neg(x)))


@rule("torch.aten.log2")
def log2(node: Node, x):
    return vb.mul(vb.log(x), node.constant(1.0 / math.log(2.0)))


# ----------------------------------------------------------------------------- comparisons, selection


def _compare(predicate: str):
    def convert(node: Node, a, b):
        elem = common_element(a, b)
        return vb.compare(as_tensor(node, a, elem), as_tensor(node, b, elem), predicate=predicate)

    for suffix in ("Tensor", "Scalar"):
        rule(f"torch.aten.{predicate}.{suffix}", dynamic=True)(convert)


for _predicate in ("eq", "ne", "lt", "le", "gt", "ge"):
    _compare(_predicate)


@rule(
    "torch.aten.where.self",
    "torch.aten.where.ScalarOther",
    "torch.aten.where.ScalarSelf",
    "torch.aten.where.Scalar",
    dynamic=True,
)
def where(node: Node, cond, a, b):
    cond = as_tensor(node, cond, "i1")
    return vb.select(cond, *promoted(node, a, b))


@rule("torch.aten.masked_fill.Scalar", "torch.aten.masked_fill.Tensor", dynamic=True)
def masked_fill(node: Node, x, mask, value):
    return vb.select(as_tensor(node, mask, "i1"), *promoted(node, value, x))


# ----------------------------------------------------------------------------- casts and identities
# The result type torch declares carries the dtype: returning the input lets the converter
# insert the one `versa.cast` (or none when the types already agree).


@rule(
    "torch.aten.to.dtype",
    "torch.aten.to.dtype_layout",
    "torch.aten.to.device",
    "torch.aten._to_copy",
    "torch.prims.convert_element_type",
    "torch.aten.type_as",
    "torch.aten.contiguous",
    "torch.aten.clone",
    "torch.aten.detach",
    "torch.aten.detach_",  # after lift_fresh_copy: a tensor built in forward (torch.tensor([...]))
    "torch.aten.alias",
    "torch.aten.lift_fresh_copy",
    "torch.aten.positive",
    "torch.aten._assert_tensor_metadata",
    dynamic=True,
)
def identity(node: Node, x, *_):
    return x


@rule(
    "torch.aten.dropout",
    "torch.aten.feature_dropout",
    "torch.aten.alpha_dropout",
    "torch.aten.feature_alpha_dropout",
    dynamic=True,
)
def dropout(node: Node, x, p, train):
    if train and p > 0:
        raise Unsupported("dropout in training mode (random numbers are not compiled)")
    return x
