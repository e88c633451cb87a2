"""Algebraic identities of versa-canonicalize: each exact in IEEE arithmetic, NaN and inf included.

    neg(neg x) → x                           a sign flip twice (integers wrap the same way)
    abs(abs x), abs(neg x) → abs x           abs clears the sign, whatever it was
    max(x, x), min(x, x), and(x, x), or(x, x) → x
    not(not x) → x;  select(c, x, x) → x     (only when the result has x's type)
    x - x, x * 0, 0 * x → 0                  integer element types only, static result shapes
    cast(x) → x                              when the result type is x's type
    broadcast_to(x) → x;  broadcast_to(broadcast_to x) → broadcast_to x
    slice(x), pad(x) → x                     when they keep every element in place
    concat(x) → x                            a single operand
    reduce_*(x) over size-1 axes → reshape(x) (or x): a sum, max or mean of one element is it
                                             (the reference sums from +0, so a sum of one -0 is +0:
                                             the fold keeps -0, as x + 0 → x does)
    clamp(x) without bounds → x;  clamp(clamp(x, a, b), c, d) → clamp(x, max(a, c), min(b, d))
                                             when [a, b] and [c, d] overlap (disjoint ones stay)

Deliberately not folded for floats: x - x → 0 and x * 0 → 0 (inf - inf and NaN - NaN are NaN,
inf * 0 is NaN, -1 * 0 is -0); exp(log x) → x (NaN for x < 0, and rounding: exp(log 7) is not 7
in f32) and log(exp x) → x (exp overflows to inf above ~88.7 in f32, and log(exp 0.1) is not 0.1).
No identity changes a result type: an op whose result is broadcast beyond x's type stays.
The folds to 0 keep a result with a `?` dim: a constant has a static type, and the dialect has
no zero "of x's shape" that is cheaper than the subtraction itself (a `broadcast_to` into a `?`
that no input dim gives is refused).
"""

import numpy as np
from versa.dialects.versa import (
    AbsOp,
    AndOp,
    BroadcastToOp,
    CastOp,
    ClampOp,
    ConcatOp,
    MaxOp,
    MinOp,
    MulOp,
    NegOp,
    NotOp,
    OrOp,
    PadOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceSumOp,
    ReshapeOp,
    SelectOp,
    SliceOp,
    SubOp,
)
from versa.mlir import ir, rewrite

from ...common.matching import constant, is_splat_of, producer

Rewriter = rewrite.PatternRewriter


def _forward(op: ir.OpView, value: ir.Value, rewriter: Rewriter) -> bool:
    """Replace `op` by `value` when that keeps the result type; report whether it did."""
    if value.type != op.results[0].type:
        return False
    rewriter.replace_op(op, [value])
    return True


def _is_integer(op: ir.OpView) -> bool:
    return isinstance(op.results[0].type.element_type, ir.IntegerType)


def _zero_of_result(op: ir.OpView, rewriter: Rewriter) -> bool:
    """Replace `op` by a zero constant of its result type, where that type is static (a
    constant cannot have a `?` dim: such an op stays)."""
    result_type = op.results[0].type
    if not result_type.has_static_shape:
        return False
    rewriter.replace_op(op, [constant(0, result_type)])
    return True


def double_negation(op: ir.OpView, rewriter: Rewriter) -> bool:
    """neg(neg x) → x."""
    inner = producer(op.operands[0], "versa.neg")
    return inner is not None and _forward(op, inner.operands[0], rewriter)


def double_not(op: ir.OpView, rewriter: Rewriter) -> bool:
    """not(not x) → x."""
    inner = producer(op.operands[0], "versa.not")
    return inner is not None and _forward(op, inner.operands[0], rewriter)


def abs_ignores_sign(op: ir.OpView, rewriter: Rewriter) -> bool:
    """abs(abs x) → abs x; abs(neg x) → abs x."""
    source = op.operands[0]
    if producer(source, "versa.abs") is not None:
        rewriter.replace_op(op, [source])
        return True
    inner = producer(source, "versa.neg")
    if inner is None:
        return False
    rewriter.replace_op(op, [AbsOp.build([inner.operands[0]], {}, op.results[0].type)])
    return True


def idempotent(op: ir.OpView, rewriter: Rewriter) -> bool:
    """max(x, x), min(x, x), and(x, x), or(x, x) → x."""
    lhs, rhs = op.operands[0], op.operands[1]
    return lhs == rhs and _forward(op, lhs, rewriter)


def select_same(op: ir.OpView, rewriter: Rewriter) -> bool:
    """select(c, x, x) → x."""
    on_true, on_false = op.operands[1], op.operands[2]
    return on_true == on_false and _forward(op, on_true, rewriter)


def integer_self_subtraction(op: ir.OpView, rewriter: Rewriter) -> bool:
    """x - x → 0 on integers (for floats inf - inf is NaN)."""
    return _is_integer(op) and op.operands[0] == op.operands[1] and _zero_of_result(op, rewriter)


def integer_times_zero(op: ir.OpView, rewriter: Rewriter) -> bool:
    """x * 0, 0 * x → 0 on integers (for floats inf * 0 is NaN and -1 * 0 is -0)."""
    return _is_integer(op) and any(is_splat_of(v, 0) for v in op.operands) and _zero_of_result(op, rewriter)


def same_type(op: ir.OpView, rewriter: Rewriter) -> bool:
    """cast(x), broadcast_to(x), concat(x) → x when the result type is x's."""
    return len(op.operands) == 1 and _forward(op, op.operands[0], rewriter)


def broadcast_of_broadcast(op: ir.OpView, rewriter: Rewriter) -> bool:
    """broadcast_to(broadcast_to(x)) → broadcast_to(x)."""
    inner = producer(op.operands[0], "versa.broadcast_to")
    if inner is None:
        return False
    rewriter.replace_op(op, [BroadcastToOp.build([inner.operands[0]], {}, op.results[0].type)])
    return True


def identity_slice(op: ir.OpView, rewriter: Rewriter) -> bool:
    """slice(x) → x when it starts at 0 and steps by 1 (or over a size-1 dim) everywhere, and
    ends at each dim's size (a `?` dim's slice keeps x's type, not always its size)."""
    attrs = SliceOp.attrs(op)
    shape = op.operands[0].type.shape
    steps_in_place = all(s == 1 or d == 1 for s, d in zip(attrs["strides"], shape, strict=True))
    whole = all(limit == d for limit, d in zip(attrs["limits"], shape, strict=True))  # `?`: unknown
    plain = whole and not any(attrs["starts"]) and not any(attrs["from_end"])
    return plain and steps_in_place and _forward(op, op.operands[0], rewriter)


def identity_pad(op: ir.OpView, rewriter: Rewriter) -> bool:
    """pad(x) → x when it pads nothing on either side."""
    attrs = PadOp.attrs(op)
    return not any(attrs["low"]) and not any(attrs["high"]) and _forward(op, op.operands[0], rewriter)


def reduce_unit_axes(op: ir.OpView, rewriter: Rewriter) -> bool:
    """reduce_{sum,max,mean}(x) over size-1 axes only → reshape(x), or x when the types agree."""
    source = op.operands[0]
    axes = type(op).attrs(op)["axes"]
    if any(source.type.shape[a] != 1 for a in axes):
        return False
    result_type = op.results[0].type
    if source.type == result_type:
        rewriter.replace_op(op, [source])
    else:
        rewriter.replace_op(op, [ReshapeOp.build([source], {}, result_type)])
    return True


def _bounds(op: ir.OpView) -> tuple[float, float]:
    attrs = ClampOp.attrs(op)
    lo, hi = attrs["min"], attrs["max"]
    return (-np.inf if lo is None else lo), (np.inf if hi is None else hi)


def _clamp_attrs(lo: float, hi: float) -> dict[str, ir.Attribute]:
    f32 = ir.F32Type.get()
    bounds = {"min": lo, "max": hi}
    return {name: ir.FloatAttr.get(f32, v) for name, v in bounds.items() if np.isfinite(v)}


def merge_clamps(op: ir.OpView, rewriter: Rewriter) -> bool:
    """clamp(x) without bounds → x; clamp(clamp(x, a, b), c, d) → clamp(x, max(a, c), min(b, d))."""
    lo, hi = _bounds(op)
    if lo == -np.inf and hi == np.inf:
        return _forward(op, op.operands[0], rewriter)
    inner = producer(op.operands[0], "versa.clamp")
    if inner is None:
        return False
    inner_lo, inner_hi = _bounds(inner)
    lo, hi = max(lo, inner_lo), min(hi, inner_hi)
    if lo > hi:  # disjoint: every number maps to one bound (NaN stays NaN); no clamp says that
        return False
    merged = ClampOp.build([inner.operands[0]], _clamp_attrs(lo, hi), op.results[0].type)
    rewriter.replace_op(op, [merged])
    return True


PATTERNS = [
    (NegOp, double_negation),
    (NotOp, double_not),
    (AbsOp, abs_ignores_sign),
    *[(cls, idempotent) for cls in (MaxOp, MinOp, AndOp, OrOp)],
    (SelectOp, select_same),
    (SubOp, integer_self_subtraction),
    (MulOp, integer_times_zero),
    *[(cls, same_type) for cls in (CastOp, BroadcastToOp, ConcatOp)],
    (BroadcastToOp, broadcast_of_broadcast),
    (SliceOp, identity_slice),
    (PadOp, identity_pad),
    *[(cls, reduce_unit_axes) for cls in (ReduceSumOp, ReduceMaxOp, ReduceMeanOp)],
    (ClampOp, merge_clamps),
]
