"""Trigonometry, log1p/expm1, rounding, sign and copysign, and the rounding divisions built on them:
floor_divide, div with rounding_mode "floor" / "trunc", remainder (float and integer tensors).

Each unary op is one versa op (`dialects/ops_math.py`); floor, ceil, round and trunc of an
integer tensor are the tensor itself, as in torch. Floor division and remainder follow torch's
kernels, which derive both from fmod and so are exact: q = floor(a / b) is the floor of the
true quotient or one above it (a / b rounds up across an integer: 1.0 // 0.1 is 9, not 10)
where |a / b| < 2^24, so r = a - q b is computed exactly (q b as a Dekker product: the sum of
two floats; a second such step for quotients up to 2^48) and one step corrects q and r where
r's sign is not b's. Then 1.0 // 0.1 = 9 and 1.0 % 0.1 = 0.09999998 as
in torch, and the remainder of 1e4 by 2 pi has no rounding error at all (a - floor(a / b) b
rounded as written is 1e-3 off there). As torch: b = +-inf gives the remainder a or b (-1 % inf
= inf) and the quotient 0 or -1; b = 0 gives a / b and NaN; a = +-inf gives NaN for both. f16
and bf16 compute in f32 and round once (as torch's kernels).
"""

import math

from versa.dialects import builders as vb
from versa.mlir import arith, ir, linalg, tensor

from .. import types
from ..convert import Node, Unsupported, rule
from .common import element, promoted, unary_rule

_SPLIT = 4097.0  # 2^12 + 1: Veltkamp's split of a 24-bit f32 significand into two 12-bit halves


def _same(x: ir.Value) -> ir.Value:
    return x


for _name, _build in {
    "sin": vb.sin,
    "cos": vb.cos,
    "tan": vb.tan,
    "atan": vb.atan,
    "log1p": vb.log1p,
    "expm1": vb.expm1,
}.items():
    unary_rule(_name, _build)
for _name, _build in {
    "floor": vb.floor,
    "ceil": vb.ceil,
    "round": vb.round,
    "trunc": vb.trunc,
    "fix": vb.trunc,
}.items():
    unary_rule(_name, _build, integer=_same)
unary_rule("sign", vb.sign, integer=vb.sign)
unary_rule("sgn", vb.sign, integer=vb.sign)  # real tensors: sgn is sign


_BITS = {"f32": 32, "f16": 16, "bf16": 16}


def _negative(b: ir.Value) -> ir.Value:
    """b's sign bit, read as torch reads it: -0.0 and a NaN with the sign bit set are negative,
    +NaN is not. No versa op can see a NaN's sign (comparisons are false, and abs/neg/div keep
    it a NaN), and versa has no bitcast, so this one elementwise `linalg.generic` (bitcast to an
    integer of the same width, < 0) sits among the versa ops as the linalg fallback's ops do."""
    shape, element_type = list(b.type.shape), b.type.element_type
    width = _BITS.get(str(element_type))
    if width is None:
        raise Unsupported(f"the sign bit of {element_type}")
    integer, boolean = ir.IntegerType.get_signless(width), ir.IntegerType.get_signless(1)
    init = tensor.EmptyOp(shape, boolean).result
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(shape)))
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    generic = linalg.GenericOp(
        [init.type], [b], [init], ir.ArrayAttr.get([identity] * 2), ir.ArrayAttr.get([parallel] * len(shape))
    )
    body = generic.regions[0].blocks.append(element_type, boolean)
    with ir.InsertionPoint(body):
        bits = arith.bitcast(integer, body.arguments[0])
        zero = arith.constant(integer, 0)
        linalg.YieldOp([arith.cmpi(arith.CmpIPredicate.slt, bits, zero)])
    return generic.result


@rule("torch.aten.copysign.Tensor", "torch.aten.copysign.Scalar")
def copysign(node: Node, a, b):
    """|a| with b's sign bit (-0.0 and -NaN count as negative: `_negative`)."""
    if not types.is_float(node.out.element):
        raise Unsupported(f"copysign to {node.out.element}")
    size = vb.abs(promoted(node, a)[0])
    if not isinstance(b, ir.Value):  # a number: its sign is known now
        return vb.neg(size) if math.copysign(1.0, b) < 0 else size
    (b,) = promoted(node, b)
    return vb.select(_negative(b), vb.neg(size), size)


@rule("torch.aten.signbit")
def signbit(node: Node, x):
    """The sign bit (`_negative`); integers: x < 0."""
    if not types.is_float(element(x)):
        return vb.compare(x, node.constant(0, element(x)), predicate="lt")
    return _negative(x)


@rule("torch.aten.round.decimals")
def round_decimals(node: Node, x, decimals=0):
    """torch's round_decimals: round(x · 10^d) / 10^d, or round(x / 10^-d) · 10^-d for d < 0."""
    (x,) = promoted(node, x)
    if not types.is_float(element(x)):
        return x
    scale = node.constant(10.0 ** abs(decimals))
    if decimals < 0:
        return vb.mul(vb.round(vb.div(x, scale)), scale)
    return vb.div(vb.round(vb.mul(x, scale)), scale) if decimals else vb.round(x)


@rule("torch.aten.frac")
def frac(node: Node, x):
    """x - trunc(x), with the sign of x (torch.frac)."""
    (x,) = promoted(node, x)
    return vb.sub(x, vb.trunc(x))


# ----------------------------------------------------------------------------- rounding divisions


def _compute(node: Node, *xs) -> list[ir.Value]:
    """The operands in the result's element type, f16/bf16 widened to f32."""
    xs = promoted(node, *xs)
    if element(xs[0]) in ("f16", "bf16"):
        xs = [vb.cast(x, ir.F32Type.get()) for x in xs]
    if element(xs[0]) not in ("f32", "i8", "i32", "i64"):
        raise Unsupported(f"floor division and remainder of {element(xs[0])} tensors")
    return xs


def _split(node: Node, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """x = hi + lo exactly, each with at most 12 significant bits (Veltkamp)."""
    c = vb.mul(x, node.constant(_SPLIT, "f32"))
    hi = vb.sub(c, vb.sub(c, x))
    return hi, vb.sub(x, hi)


def _exact_remainder(node: Node, a: ir.Value, b: ir.Value, q: ir.Value) -> ir.Value:
    """a - q·b rounded once: q·b = p + e exactly (Dekker's product, no fma needed), a - p is
    exact where q is within one of a / b (Sterbenz), and the remainder is representable. q (an
    integer) is split at 2^-40 scale, exactly, so that 4097 q cannot overflow."""
    down, up = node.constant(2.0**-40, "f32"), node.constant(2.0**40, "f32")
    (qh, ql), (bh, bl) = (vb.mul(v, up) for v in _split(node, vb.mul(q, down))), _split(node, b)
    p = vb.mul(q, b)
    e = vb.add(vb.sub(vb.mul(qh, bh), p), vb.mul(qh, bl))
    e = vb.add(vb.add(e, vb.mul(ql, bh)), vb.mul(ql, bl))
    return vb.sub(vb.sub(a, p), e)


def _differ(node: Node, r: ir.Value, b: ir.Value) -> ir.Value:
    """r is nonzero and of the other sign than b (NaN: false)."""
    zero = node.constant(0, element(r))

    def both(x, px, y, py):
        return vb.logical_and(vb.compare(x, zero, predicate=px), vb.compare(y, zero, predicate=py))

    return vb.logical_or(both(r, "lt", b, "gt"), both(r, "gt", b, "lt"))


def _float_floor_division(node: Node, a: ir.Value, b: ir.Value) -> tuple[ir.Value, ir.Value]:
    def cmp(x, y, predicate):
        return vb.compare(x, y, predicate=predicate)

    both = vb.logical_and
    inf, zero, nan = (node.constant(v, "f32") for v in (float("inf"), 0.0, float("nan")))
    a_finite, b_finite = cmp(vb.abs(a), inf, "lt"), cmp(vb.abs(b), inf, "lt")
    # Two steps: where |a / b| >= 2^24 the rounded quotient is off by more than one, and the
    # first exact remainder is only below |a| 2^-24; the second brings it within one b (exact
    # for |a / b| < 2^48; beyond, the remainder is off by up to |a| 2^-48: torch's is exact).
    q1 = vb.floor(vb.div(a, b))
    r1 = _exact_remainder(node, a, b, q1)
    q2 = vb.floor(vb.div(r1, b))
    r = _exact_remainder(node, r1, b, q2)
    regular = both(both(a_finite, b_finite), both(cmp(b, zero, "ne"), cmp(r, r, "eq")))
    q = vb.select(regular, vb.add(q1, q2), q1)
    # b = +-inf, a finite: the remainder is a (then b where their signs differ), q1 is +-0.
    r = vb.select(both(cmp(vb.abs(b), inf, "eq"), a_finite), a, r)
    # |b| > 8e34 overflows b's split: the remainder as rounded (|a / b| < 5e3 there).
    overflow = both(both(a_finite, b_finite), both(cmp(b, zero, "ne"), cmp(r, r, "ne")))
    r = vb.select(overflow, vb.sub(a, vb.mul(q1, b)), r)
    wrong = _differ(node, r, b)
    one = node.constant(1.0, "f32")
    q, r = vb.select(wrong, vb.sub(q, one), q), vb.select(wrong, vb.add(r, b), r)
    # a = +-inf over b != 0: NaN (torch's q comes from fmod(a, b), NaN); a / 0 stays a / 0.
    return vb.select(both(cmp(vb.abs(a), inf, "eq"), cmp(b, zero, "ne")), nan, q), r


def _floor_division(node: Node, a, b) -> tuple[ir.Value, ir.Value]:
    """(a // b, a % b) with torch's (Python's) signs: the remainder takes the divisor's sign."""
    a, b = _compute(node, a, b)
    if types.is_float(element(a)):
        return _float_floor_division(node, a, b)
    q = vb.div(a, b)  # integers truncate toward zero; a / 0 is 0 (torch raises)
    r = vb.sub(a, vb.mul(q, b))
    one = node.constant(1, element(a))
    wrong = _differ(node, r, b)
    return vb.select(wrong, vb.sub(q, one), q), vb.select(wrong, vb.add(r, b), r)


@rule("torch.aten.floor_divide", "torch.aten.floor_divide.Scalar")
def floor_divide(node: Node, a, b):
    return _floor_division(node, a, b)[0]


@rule(
    "torch.aten.remainder.Tensor",
    "torch.aten.remainder.Scalar",
    "torch.aten.remainder.Scalar_Tensor",
)
def remainder(node: Node, a, b):
    return _floor_division(node, a, b)[1]


@rule("torch.aten.div.Tensor_mode", "torch.aten.div.Scalar_mode")
def div_mode(node: Node, a, b, rounding_mode=None):
    if rounding_mode == "floor":
        return floor_divide(node, a, b)
    if rounding_mode is None:
        return vb.div(*promoted(node, a, b))
    if rounding_mode != "trunc":
        raise Unsupported(f"rounding_mode={rounding_mode!r}")
    # torch: trunc(a / b) for floats (in f32 for f16/bf16); integers divide truncating anyway.
    a, b = _compute(node, a, b)
    return vb.trunc(vb.div(a, b)) if types.is_float(element(a)) else vb.div(a, b)
