"""versa-collapse-epilogues: an elementwise op on a reshaped matmul result runs in the matmul's
shape, so that versa-codegen's epilogue strategy computes it on the matmul's output tiles.

A linear layer on [..., M, K] lowers to one [... * M, K] x [K, N] matmul whose result is
expanded back to [..., M, N]; its bias and activation are then a generic over [..., M, N], a
second pass over the output that the epilogue strategy cannot fuse (it wants the contraction's
own shape). Here such a generic is rewritten over [... * M, N], its result expanded instead:

    %e = tensor.expand_shape %mm [[0, 1], [2]] : tensor<1024x2048xf32> into tensor<8x128x2048xf32>
    %y = linalg.generic ins(%bias : tensor<2048xf32>) outs(%e) {maps (d0, d1, d2) -> (d2), id}
  →
    %g = linalg.generic ins(%bias) outs(%mm) {maps (d0, d1) -> (d1), id}
    %y = tensor.expand_shape %g [[0, 1], [2]] ...

Every other operand must read the leading dims all together (collapsed for free, as contiguous
tensors) or not at all (a bias); an operand broadcast over some of them, a body that asks for
its indices, or a map with constants leaves the generic alone. Upstream's
`populateFoldReshapeOpsByCollapsingPatterns` does this, but no pass or transform op of this
wheel exposes it.
"""

from dataclasses import dataclass

from versa.mlir import ir, linalg, tensor

from .base import Pass, collect
from .matching import producer


def _matmul_view(value: ir.Value, rank: int) -> ir.Value | None:
    """The 2-D linalg.matmul result that `value` expands to [..., M, N] (rank `rank`), if so."""
    expand = producer(value, "tensor.expand_shape")
    if expand is None:
        return None
    groups = [[int(ir.IntegerAttr(d)) for d in g] for g in ir.ArrayAttr(expand.attributes["reassociation"])]
    if groups != [list(range(rank - 1)), [rank - 1]]:
        return None
    source = expand.operands[0]
    return source if producer(source, "linalg.matmul") is not None else None


def _collapsed_map(m: ir.AffineMap, rank: int) -> tuple[ir.AffineMap, bool] | None:
    """The map over (rows, columns) that reads what `m` read over (d0, ..., d_rank-1), and whether
    the operand must be collapsed first (it reads every leading dim, in order, from its first
    dim on); None if it reads only some leading dims or has constants."""
    if not all(isinstance(e, ir.AffineDimExpr) for e in m.results):
        return None
    dims = [ir.AffineDimExpr(e).position for e in m.results]
    leading = list(range(rank - 1))
    if not set(dims) & set(leading):
        return ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(1)] * len(dims)), False
    if dims[: rank - 1] != leading or dims[rank - 1 :] not in ([], [rank - 1]):
        return None
    results = [ir.AffineDimExpr.get(0)] + [ir.AffineDimExpr.get(1)] * (len(dims) - rank + 1)
    return ir.AffineMap.get(2, 0, results), True


def _collapse(value: ir.Value, rank: int) -> ir.Value:
    """`value` with its first `rank - 1` dims as one."""
    t = ir.RankedTensorType(value.type)
    shape = list(t.shape)
    rows = 1
    for d in shape[: rank - 1]:
        rows *= d
    groups = [list(range(rank - 1))] + [[d] for d in range(rank - 1, len(shape))]
    target = ir.RankedTensorType.get([rows, *shape[rank - 1 :]], t.element_type)
    return tensor.CollapseShapeOp(target, value, groups).result


def _rewrite(op: ir.Operation) -> bool:
    iterators = [str(it) for it in op.attributes["iterator_types"]]
    rank = len(iterators)
    if rank < 3 or len(op.results) != 1 or any("parallel" not in it for it in iterators):
        return False
    block = op.regions[0].blocks[0]
    if any(o.operation.name == "linalg.index" for o in block.operations):
        return False
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    identity = ir.AffineMap.get_identity(rank)
    operands = list(op.operands)
    views = [_matmul_view(v, rank) if m == identity else None for v, m in zip(operands, maps, strict=True)]
    if not any(views):
        return False
    plans = [_collapsed_map(m, rank) for m in maps]
    if any(p is None for p in plans):
        return False
    with ir.InsertionPoint(op), op.location:
        new_operands = []
        for value, view, (_, collapse) in zip(operands, views, plans, strict=True):
            new_operands.append(view or (_collapse(value, rank) if collapse else value))
        inputs = len(operands) - 1
        result_type = new_operands[-1].type
        generic = linalg.GenericOp(
            [result_type],
            new_operands[:inputs],
            new_operands[inputs:],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(p[0]) for p in plans]),
            ir.ArrayAttr.get(list(op.attributes["iterator_types"])[:2]),
        )
        block.append_to(generic.regions[0])
        out = ir.RankedTensorType(op.results[0].type)
        groups = [list(range(rank - 1)), [rank - 1]]
        expanded = tensor.ExpandShapeOp(out, generic.result, groups, [], list(out.shape)).result
    op.results[0].replace_all_uses_with(expanded)
    op.erase()
    return True


@dataclass(frozen=True)
class VersaCollapseEpilogues(Pass):
    name = "versa-collapse-epilogues"
    summary = "Compute elementwise ops on an expanded matmul result in the matmul's 2-D shape"

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name == "linalg.generic"):
            _rewrite(op)
