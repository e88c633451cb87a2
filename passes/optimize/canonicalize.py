"""versa-canonicalize: algebraic simplification, cancellation, folding and CSE.

    transpose(transpose(x, p), q) → transpose(x, p∘q)   (→ x when the composition is identity)
    reshape(reshape(x))           → reshape(x)          (→ x when the types agree)
    x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 → x        (only when no broadcast changes x's type;
                                                         x + 0 turns -0 into +0: the fold keeps -0)
    relu(relu(x))                 → relu(x)
    identities exact in IEEE float (neg(neg x) → x, ...): algebra.py
    batch_norm(conv2d(x, W))      → conv2d(x, W·s) + b' (inference, constant W): fold_batch_norm.py
    quantize(max_pool2d(dequantize(q))) → max_pool2d(q)  (same parameters, exact): quantized_pool.py
    op(constants...)              → constant            (folded with the NumPy semantics; up to
                                                         FOLD_LIMIT elements, any size for splats)
    fused{yield outer values}     → those values
Then upstream `cse` merges identical ops (every versa op is Pure; identical means same operands,
attributes and types), in `versa.fused` regions too; patterns and CSE repeat while CSE merges.
Dead ops disappear too: the greedy driver erases unused pure ops.
"""

from dataclasses import dataclass

import numpy as np
from versa.dialects.semantics import evaluate
from versa.dialects.versa import (
    OPS,
    AddOp,
    DivOp,
    FusedOp,
    MulOp,
    ReluOp,
    ReshapeOp,
    SubOp,
    TransposeOp,
)
from versa.mlir import PassManager, ir, rewrite
from versa.reference import interpret_op

from ..common.base import Pass, collect
from ..common.matching import (
    constant,
    constant_array,
    is_numpy_constant,
    is_splat_of,
    numpy_dtype_of,
    producer,
    splat_value,
)
from ..common.rewrite import apply_greedily
from .rules import algebra, float_pads, fold_batch_norm, quantized_pool
from .rules.transposes import compose_transposes, identity_transpose

FOLD_LIMIT = 1 << 16  # elements: larger constants stay computed at run time (splats excepted)
MAX_ROUNDS = 4  # patterns then CSE, repeated while CSE merges ops (merges can enable patterns)
# Ops that move elements without computing them: on a splat, the result is the same splat.
_MOVES = ("versa.transpose", "versa.reshape", "versa.broadcast_to", "versa.slice")


def collapse_reshapes(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """reshape(reshape(x)) → reshape(x); reshape(x) → x when the types agree."""
    source = op.operands[0]
    if source.type == op.results[0].type:
        rewriter.replace_op(op, [source])
        return True
    inner = producer(source, "versa.reshape")
    if inner is None:
        return False
    rewriter.replace_op(op, [ReshapeOp.build([inner.operands[0]], {}, op.results[0].type)])
    return True


def _identity_operand(op: ir.OpView, neutral: float, commutative: bool) -> ir.Value | None:
    lhs, rhs = op.operands[0], op.operands[1]
    result_type = op.results[0].type
    if lhs.type == result_type and is_splat_of(rhs, neutral):
        return lhs
    if commutative and rhs.type == result_type and is_splat_of(lhs, neutral):
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
    if producer(op.operands[0], "versa.relu") is None:
        return False
    rewriter.replace_op(op, [op.operands[0]])
    return True


def fold_constants(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """op(constant, ...) → constant, evaluated with the NumPy reference semantics."""
    name = op.operation.name
    if name in ("versa.constant", "versa.fused", "versa.yield") or len(op.results) != 1:
        return False
    result_type = op.results[0].type
    if numpy_dtype_of(result_type.element_type) is None:
        return False
    folded = _fold_splats(op)
    if folded is None:
        # checked before any constant is expanded: a matmul's weight is a copy of megabytes
        if np.prod(result_type.shape) > FOLD_LIMIT or not all(is_numpy_constant(v) for v in op.operands):
            return False
        folded = interpret_op(op, [constant_array(v) for v in op.operands])
    rewriter.replace_op(op, [constant(folded, result_type)])
    return True


def _fold_splats(op: ir.OpView) -> np.ndarray | None:
    """The one element of op's result when its operands are splats and it is elementwise or
    only moves elements: computed on single elements, so a splat of any size folds cheaply."""
    splats = [splat_value(v) for v in op.operands]
    if not splats or any(s is None for s in splats):
        return None
    name = op.operation.name
    scalars = [
        np.array(s, numpy_dtype_of(v.type.element_type)) for s, v in zip(splats, op.operands, strict=True)
    ]
    if name in _MOVES:
        return scalars[0]
    if name == "versa.concat" and len(set(splats)) == 1:
        return scalars[0]
    if not OPS[name].ELEMENTWISE:
        return None
    attrs = OPS[name].attrs(op)
    return evaluate(name, scalars, attrs, (), numpy_dtype_of(op.results[0].type.element_type))


def forward_captured_results(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """fused{yield values defined outside it} → those values (CSE can leave such groups)."""
    body = op.regions[0].blocks[0]
    yielded = list(list(body.operations)[-1].operands)
    if any(isinstance(v, ir.OpResult) and v.owner.operation.parent == op.operation for v in yielded):
        return False
    rewriter.replace_op(op, yielded)
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
    (FusedOp, forward_captured_results),
    *algebra.PATTERNS,
    *fold_batch_norm.PATTERNS,
    *float_pads.PATTERNS,  # explicit zero pads into the conv2d's padding (float_pads.py)
    *quantized_pool.PATTERNS,  # dequantize → max_pool2d → quantize on the integers (quantized_pool.py)
    *[(cls, fold_constants) for cls in OPS.values() if cls.OPERATION_NAME != "versa.constant"],
]


def _op_count(module: ir.Operation) -> int:
    return len(collect(module, lambda op: True))


@dataclass(frozen=True)
class VersaCanonicalize(Pass):
    name = "versa-canonicalize"
    summary = "Simplify versa IR: identities, cancellation, constant and batch-norm folding, CSE"

    def run(self, module: ir.Operation) -> None:
        cse = PassManager.parse("builtin.module(cse)", module.context)
        for _ in range(MAX_ROUNDS):
            apply_greedily(module, PATTERNS)
            before = _op_count(module)
            cse.run(module)
            if _op_count(module) == before:  # CSE only removes ops: nothing new to match
                return
