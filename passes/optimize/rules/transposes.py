"""Transpose folds: patterns of versa-canonicalize that the layout pass also runs while it
moves transposes (transpose_motion)."""

from versa.dialects.versa import TransposeOp
from versa.mlir import ir, rewrite

from ...common.matching import producer


def compose_transposes(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """transpose(transpose(x, p), q) → transpose(x, [p[i] for i in q]) or x."""
    inner = producer(op.operands[0], "versa.transpose")
    if inner is None:
        return False
    source = inner.operands[0]
    p = TransposeOp.attrs(inner)["perm"]
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
