"""versa-collapse-epilogues: an elementwise op on a reshaped (batch) matmul result runs in the
contraction's shape, so that versa-codegen's epilogue strategy computes it on the output tiles.

A linear layer on [..., M, K] lowers to one [... * M, K] x [K, N] matmul whose result is
expanded back to [..., M, N]; its bias and activation are then a generic over [..., M, N], a
second pass over the output that the epilogue strategy cannot fuse (it wants the contraction's
own shape). Here such a generic is rewritten over [... * M, N], its result expanded instead
(a batch matmul over [..., B, M, K] likewise, over [... * B, M, N]):

    %e = tensor.expand_shape %mm [[0, 1], [2]] : tensor<1024x2048xf32> into tensor<8x128x2048xf32>
    %y = linalg.generic ins(%bias : tensor<2048xf32>) outs(%e) {maps (d0, d1, d2) -> (d2), id}
  →
    %g = linalg.generic ins(%bias) outs(%mm) {maps (d0, d1) -> (d1), id}
    %y = tensor.expand_shape %g [[0, 1], [2]] ...

Every other operand must read the leading dims all together (collapsed for free, as contiguous
tensors) or not at all (a bias); an operand broadcast over some of them, a body that asks for
its indices, or a map with other constants leaves the generic alone. Upstream's
`populateFoldReshapeOpsByCollapsingPatterns` does this, but no pass or transform op of this
wheel exposes it.
"""

from dataclasses import dataclass

from versa.mlir import ir, linalg, tensor

from ..common.base import Pass, collect
from ..common.matching import producer

CONTRACTIONS = {"linalg.matmul": 2, "linalg.batch_matmul": 3}  # op: rank of its result


def _groups(rank: int, kept: int) -> list[list[int]]:
    """All but the last `kept - 1` of `rank` dims as one, then the rest one by one."""
    lead = rank - kept + 1
    return [list(range(lead))] + [[d] for d in range(lead, rank)]


def _matmul_view(value: ir.Value, rank: int) -> tuple[ir.Value, int] | None:
    """The (batch) matmul result that `value` expands to [..., M, N] (rank `rank`) and its
    rank, if so: a matmul's rows or a batch matmul's batches are the expanded leading dims."""
    expand = producer(value, "tensor.expand_shape")
    if expand is None:
        return None
    groups = [[int(ir.IntegerAttr(d)) for d in g] for g in ir.ArrayAttr(expand.attributes["reassociation"])]
    source = expand.operands[0]
    for name, kept in CONTRACTIONS.items():
        if groups == _groups(rank, kept) and producer(source, name) is not None:
            return source, kept
    return None


def _collapsed_map(m: ir.AffineMap, rank: int, kept: int) -> tuple[ir.AffineMap, bool] | None:
    """The map over the contraction's `kept` dims that reads what `m` read over (d0, ...,
    d_rank-1), and whether the operand must be collapsed first (it reads every leading dim, in
    order, from its first dim on, or its leading dims are all size-1 broadcasts); None if it
    reads only some leading dims. Other constant 0 results (size-1 broadcasts) stay as they are."""
    lead = rank - kept + 1
    results, dims = [], []
    for e in m.results:
        if isinstance(e, ir.AffineConstantExpr) and ir.AffineConstantExpr(e).value == 0:
            results.append(e)
            dims.append(None)
        elif isinstance(e, ir.AffineDimExpr):
            d = ir.AffineDimExpr(e).position
            results.append(ir.AffineDimExpr.get(d - lead + 1) if d >= lead else None)
            dims.append(d)
        else:
            return None
    if lead > 1 and len(results) == rank and all(d is None for d in dims[:lead]):
        if any(r is None for r in results[lead:]):
            return None
        # Size-1 leading dims (a scalar kept at full rank): one collapsed dim, so the operand
        # has no more dims than the loops (the vectorizer refuses a wider map).
        return ir.AffineMap.get(kept, 0, [results[0], *results[lead:]]), True
    if not any(d is not None and d < lead for d in dims):
        return ir.AffineMap.get(kept, 0, results), False
    if dims[:lead] != list(range(lead)) or any(r is None for r in results[lead:]):
        return None
    return ir.AffineMap.get(kept, 0, [ir.AffineDimExpr.get(0), *results[lead:]]), True


def _collapse(value: ir.Value, lead: int) -> ir.Value:
    """`value` with its first `lead` dims as one."""
    t = ir.RankedTensorType(value.type)
    shape = list(t.shape)
    rows = 1
    for d in shape[:lead]:
        rows *= d
    groups = [list(range(lead))] + [[d] for d in range(lead, len(shape))]
    target = ir.RankedTensorType.get([rows, *shape[lead:]], t.element_type)
    return tensor.CollapseShapeOp(target, value, groups).result


def _rewrite(op: ir.Operation) -> bool:
    iterators = [str(it) for it in op.attributes["iterator_types"]]
    rank = len(iterators)
    if rank < 3 or len(op.results) != 1 or any("parallel" not in it for it in iterators):
        return False
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
        return False
    block = op.regions[0].blocks[0]
    if any(o.operation.name == "linalg.index" for o in block.operations):
        return False
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    identity = ir.AffineMap.get_identity(rank)
    operands = list(op.operands)
    views = [_matmul_view(v, rank) if m == identity else None for v, m in zip(operands, maps, strict=True)]
    kinds = {view[1] for view in views if view}
    if len(kinds) != 1:
        return False
    (kept,) = kinds
    plans = [_collapsed_map(m, rank, kept) for m in maps]
    if any(p is None for p in plans):
        return False
    lead = rank - kept + 1
    with ir.InsertionPoint(op), op.location:
        new_operands = []
        for value, view, (_, collapse) in zip(operands, views, plans, strict=True):
            new_operands.append(view[0] if view else (_collapse(value, lead) if collapse else value))
        inputs = len(operands) - 1
        result_type = new_operands[-1].type
        generic = linalg.GenericOp(
            [result_type],
            new_operands[:inputs],
            new_operands[inputs:],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(p[0]) for p in plans]),
            ir.ArrayAttr.get(list(op.attributes["iterator_types"])[:kept]),
        )
        block.append_to(generic.regions[0])
        out = ir.RankedTensorType(op.results[0].type)
        expanded = tensor.ExpandShapeOp(out, generic.result, _groups(rank, kept), [], list(out.shape)).result
    op.results[0].replace_all_uses_with(expanded)
    op.erase()
    # The contraction's single use is what makes the generic its epilogue: drop the expansions
    # left without users (each once: an operand may be read twice, as in x * x).
    expansions = {v.owner: v for v, view in zip(operands, views, strict=True) if view}
    for expand, value in expansions.items():
        if not list(value.uses):
            expand.erase()
    return True


@dataclass(frozen=True)
class VersaCollapseEpilogues(Pass):
    name = "versa-collapse-epilogues"
    summary = "Compute elementwise ops on an expanded (batch) matmul result in its own shape"

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name == "linalg.generic"):
            _rewrite(op)
