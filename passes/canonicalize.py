"""versa-canonicalize: algebraic simplification, cancellation and constant folding.

    transpose(transpose(x, p), q) → transpose(x, p∘q)   (→ x when the composition is identity)
    reshape(reshape(x))           → reshape(x)          (→ x when the types agree)
    x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 → x        (only when no broadcast changes x's type)
    relu(relu(x))                 → relu(x)
    op(constants...)              → constant            (folded with the NumPy semantics)
Dead ops disappear too: every versa op is Pure, and the greedy driver erases unused pure ops.
"""

from dataclasses import dataclass

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.versa import (
    OPS,
    AddOp,
    ConstantOp,
    DivOp,
    MulOp,
    ReluOp,
    ReshapeOp,
    SubOp,
    TransposeOp,
)
from versa.mlir import ir, rewrite
from versa.reference import interpret_op

from .base import Pass
from .rewrite import apply_greedily

FOLD_LIMIT = 1 << 16  # elements: larger constants stay computed at run time


def _constant_attr(value: ir.Value) -> ir.DenseElementsAttr | None:
    if not isinstance(value, ir.OpResult) or value.owner.operation.name != "versa.constant":
        return None
    return value.owner.operation.attributes["value"]


def _is_splat_of(value: ir.Value, scalar: float) -> bool:
    attr = _constant_attr(value)
    if attr is None or np.prod(attr.type.shape) == 0:
        return False
    if attr.is_splat:  # no need to expand a splat to compare it
        return attr.get_splat_value().value == scalar
    return bool(np.all(elements_to_numpy(attr) == scalar))


def compose_transposes(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """transpose(transpose(x, p), q) → transpose(x, [p[i] for i in q]) or x."""
    inner = op.operands[0]
    if not isinstance(inner, ir.OpResult) or inner.owner.operation.name != "versa.transpose":
        return False
    source = inner.owner.operation.operands[0]
    p = TransposeOp.attrs(inner.owner)["perm"]
    perm = [p[i] for i in TransposeOp.attrs(op)["perm"]]
    if perm == list(range(len(perm))):
        rewriter.replace_op(op, [source])
    else:
        attrs = {"perm": ir.DenseI64ArrayAttr.get(perm)}
        rewriter.replace_op(op, [TransposeOp.build([source], attrs, op.results[0].type)])
    return True


def identity_transpose(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """transpose(x, identity) → x."""
    perm = TransposeOp.attrs(op)["perm"]
    if perm != list(range(len(perm))):
        return False
    rewriter.replace_op(op, [op.operands[0]])
    return True


def collapse_reshapes(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """reshape(reshape(x)) → reshape(x); reshape(x) → x when the types agree."""
    source = op.operands[0]
    if source.type == op.results[0].type:
        rewriter.replace_op(op, [source])
        return True
    if not isinstance(source, ir.OpResult) or source.owner.operation.name != "versa.reshape":
        return False
    inner = source.owner.operation.operands[0]
    rewriter.replace_op(op, [ReshapeOp.build([inner], {}, op.results[0].type)])
    return True


def _identity_operand(op: ir.OpView, neutral: float, commutative: bool) -> ir.Value | None:
    lhs, rhs = op.operands[0], op.operands[1]
    result_type = op.results[0].type
    if lhs.type == result_type and _is_splat_of(rhs, neutral):
        return lhs
    if commutative and rhs.type == result_type and _is_splat_of(lhs, neutral):
        return rhs
    return None


def _neutral_element(neutral: float, commutative: bool):
    def fold(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
        keep = _identity_operand(op, neutral, commutative)
        if keep is None:
            return False
        rewriter.replace_op(op, [keep])
        return True

    fold.__name__ = f"fold_neutral_{neutral:g}"
    return fold


def relu_of_relu(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """relu(relu(x)) → relu(x)."""
    source = op.operands[0]
    if not isinstance(source, ir.OpResult) or source.owner.operation.name != "versa.relu":
        return False
    rewriter.replace_op(op, [source])
    return True


def fold_constants(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """op(constant, ...) → constant, evaluated with the NumPy reference semantics."""
    name = op.operation.name
    if name in ("versa.constant", "versa.fused", "versa.yield") or len(op.results) != 1:
        return False
    result_type = op.results[0].type
    attrs = [_constant_attr(v) for v in op.operands]
    if np.prod(result_type.shape) > FOLD_LIMIT or any(a is None for a in attrs):
        return False
    folded = interpret_op(op, [elements_to_numpy(a) for a in attrs])
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(folded), type=result_type)
    rewriter.replace_op(op, [ConstantOp.build([], {"value": attr}, result_type)])
    return True


PATTERNS = [
    (TransposeOp, compose_transposes),
    (TransposeOp, identity_transpose),
    (ReshapeOp, collapse_reshapes),
    (AddOp, _neutral_element(0.0, commutative=True)),
    (SubOp, _neutral_element(0.0, commutative=False)),
    (MulOp, _neutral_element(1.0, commutative=True)),
    (DivOp, _neutral_element(1.0, commutative=False)),
    (ReluOp, relu_of_relu),
    *[(cls, fold_constants) for cls in OPS.values() if cls.OPERATION_NAME != "versa.constant"],
]


@dataclass(frozen=True)
class VersaCanonicalize(Pass):
    name = "versa-canonicalize"
    summary = "Simplify versa IR: cancel transposes/reshapes, drop neutral elements, fold constants"

    def run(self, module: ir.Operation) -> None:
        apply_greedily(module, PATTERNS)
