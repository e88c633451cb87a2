"""Bitwise and logical ops on bool and integer tensors: and, or, xor, not, shifts.

Every spelling of one op converts alike: `a ^ b` is `aten.__xor__.Tensor`, `torch.bitwise_xor(a,
3)` is `bitwise_xor.Scalar`, and `versa.compile` sees the operator forms that torch.compile
decomposes. `versa.and`/`or`/`not` are bitwise on integers, so xor is (a | b) & ~(a & b).
Shifts by a number are exact arithmetic: a << k is a wrapping multiply by 2^k, a >> k a floor
division by 2^k; as torch, an amount out of [0, bits) shifts every bit out (0, or the sign
for >>). Shifts by a tensor go to torch-mlir's lowering of `bitwise_*_shift.Tensor`
(`fallback.ALIASES`), whose amounts out of range are undefined as in C.
"""

from versa.dialects import builders as vb
from versa.mlir import ir

from .. import types
from ..convert import Node, Unsupported, rule
from .common import as_tensor, element, promoted

_BITS = {"i1": 1, "i8": 8, "i32": 32, "i64": 64}


@rule("torch.aten.logical_not", "torch.aten.bitwise_not", dynamic=True)
def logical_not(node: Node, x):
    return vb.logical_not(as_tensor(node, x, node.out.element))


@rule(
    "torch.aten.logical_and",
    "torch.aten.bitwise_and.Tensor",
    "torch.aten.bitwise_and.Scalar",
    "torch.aten.__and__.Tensor",
    "torch.aten.__and__.Scalar",
    dynamic=True,
)
def logical_and(node: Node, a, b):
    return vb.logical_and(*promoted(node, a, b))


@rule(
    "torch.aten.logical_or",
    "torch.aten.bitwise_or.Tensor",
    "torch.aten.bitwise_or.Scalar",
    "torch.aten.__or__.Tensor",
    "torch.aten.__or__.Scalar",
    dynamic=True,
)
def logical_or(node: Node, a, b):
    return vb.logical_or(*promoted(node, a, b))


@rule(
    "torch.aten.bitwise_xor.Tensor",
    "torch.aten.bitwise_xor.Scalar",
    "torch.aten.__xor__.Tensor",
    "torch.aten.__xor__.Scalar",
    dynamic=True,
)
def bitwise_xor(node: Node, a, b):
    a, b = promoted(node, a, b)
    if types.is_float(element(a)):
        raise Unsupported(f"xor of {element(a)} tensors")
    return vb.logical_and(vb.logical_or(a, b), vb.logical_not(vb.logical_and(a, b)))


@rule("torch.aten.logical_xor")
def logical_xor(node: Node, a, b):
    """Truth of a differs from truth of b (any element type: nonzero is true)."""
    return vb.compare(_truth(node, a), _truth(node, b), predicate="ne")


def _truth(node: Node, x) -> ir.Value:
    if isinstance(x, ir.Value) and element(x) == "i1":
        return x
    x = as_tensor(node, x, "f32") if not isinstance(x, ir.Value) else x
    return vb.compare(x, node.constant(0, element(x)), predicate="ne")


@rule("torch.aten.Int.bool")
def int_bool(node: Node, b):
    """A Python bool as an int: how `mask ^ True` passes its number (then `__xor__.Scalar`)."""
    if not isinstance(b, bool):
        raise Unsupported("a bool computed from a tensor")
    return int(b)


def _amount(k) -> int:
    if not isinstance(k, int) or isinstance(k, bool):
        raise Unsupported("a shift amount that is not an integer")  # tensors: the fallback
    return k


@rule(
    "torch.aten.bitwise_left_shift.Tensor_Scalar",
    "torch.aten.__lshift__.Scalar",
)
def left_shift(node: Node, a, k):
    """a · 2^k, wrapping as the shift does (a << 63 keeps a's lowest bit, as the sign)."""
    (a,) = promoted(node, a)
    bits = _integer_bits(a)
    if not 0 <= _amount(k) < bits:
        return vb.mul(a, node.constant(0))
    factor = (1 << k) - (1 << bits if k == bits - 1 else 0)  # 2^(bits-1) as the two's complement
    return vb.mul(a, node.constant(factor))


@rule(
    "torch.aten.bitwise_right_shift.Tensor_Scalar",
    "torch.aten.__rshift__.Scalar",
)
def right_shift(node: Node, a, k):
    """floor(a / 2^k) (arithmetic shift); k of bits - 1 or more (or negative): the sign, 0 or -1."""
    (a,) = promoted(node, a)
    bits = _integer_bits(a)
    zero, one = node.constant(0), node.constant(1)
    if not 0 <= _amount(k) < bits - 1:
        return vb.select(vb.compare(a, zero, predicate="lt"), vb.neg(one), zero)
    if k == 0:
        return a
    d = node.constant(1 << k)
    q = vb.div(a, d)  # truncates toward zero: one less where a remainder is left below zero
    negative_rest = vb.compare(vb.sub(a, vb.mul(q, d)), zero, predicate="lt")
    return vb.select(negative_rest, vb.sub(q, one), q)


def _integer_bits(a: ir.Value) -> int:
    if element(a) not in _BITS or element(a) == "i1":
        raise Unsupported(f"shifts of {element(a)} tensors")
    return _BITS[element(a)]
