"""A linear layer's fused epilogue in its qmatmul's folded shape.

A qmatmul on [..., M, K] x [K, N] lowers to one [rows, K] x [K, N] matmul (`lower_qcontract`:
rows = ... * M). Its epilogue generic over [..., M, N] would read the matmul through an
expand_shape, which neither versa-int8-kernels nor the epilogue strategies see through: the
kernel then writes an i32 tensor that a second pass reads (BERT's linears). So `lower_fused`
runs such an epilogue over [rows, N] instead, every input collapsed to match (free: contiguous
tensors), and expands its result back; the generic then reads the matmul's own result.

An input folds when its leading dims (right-aligned, as broadcasting aligns them) are all 1
(one value per column: [1, 1, N] → [N]) or are the result's own leading dims (one value per
row: a residual [B, M, N] → [rows, N], a row sum [B, M, 1] → [rows, 1]); an input of rank 0
or 1 reads no leading dim and stays. One broadcast over only some of them ([B, 1, N] with
B > 1) keeps the generic in the full shape (`fold` returns None).
"""

from collections.abc import Sequence

from versa.mlir import ir

from ...common import linalg_builders as build

Shape = tuple[int, ...]


def _target(shape: Shape, full: Shape, rows: Shape) -> Shape | None:
    """The folded shape of an input of `shape` that broadcasts against `full`, or None."""
    if len(shape) < 2:
        return shape
    lead = (1,) * (len(full) - len(shape)) + tuple(shape[:-1])
    if all(d == 1 for d in lead):
        return (shape[-1],)
    if all(d == f for d, f in zip(lead, full[:-1], strict=True)):
        return (rows[0], shape[-1])
    return None


def _collapse(value: ir.Value, target: Shape) -> ir.Value:
    rank = len(build.shape_of(value))
    if rank == len(target) and build.shape_of(value) == target:
        return value
    groups = [list(range(rank))] if len(target) == 1 else [list(range(rank - 1)), [rank - 1]]
    return build.collapse(value, target, groups)


def fold(values: Sequence[ir.Value], full: Shape, rows: Shape) -> list[ir.Value] | None:
    """`values` (a generic's inputs over `full`) collapsed to broadcast against `rows`, the
    folded [rows, N]; None when one of them does not fold (module docstring)."""
    targets = [_target(build.shape_of(v), full, rows) for v in values]
    if any(t is None for t in targets):
        return None
    return [_collapse(v, t) for v, t in zip(values, targets, strict=True)]


def unfold(value: ir.Value, full: Shape) -> ir.Value:
    """A [rows, N] result expanded back to `full`."""
    return build.expand(value, full, [list(range(len(full) - 1)), [len(full) - 1]])


def rows_of(out: Shape, shape: Shape) -> Shape | None:
    """A contraction's folded result shape `out` when it folds the leading dims of its result
    `shape` into rows (a qmatmul on [..., M, K] with 2-D weights), else None."""
    return tuple(out) if len(out) == 2 and len(shape) > 2 else None
