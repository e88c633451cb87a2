"""versa-collapse-reductions: reductions reshaped into the one form the codegen strategies
vectorize, a row (or column) reduction with one reduced loop, rather than scalar loop nests.

Adjacent loops of the same kind that every operand reads together, in order, are one loop:
a global average pool over [N, C, H, W] axes (2, 3) becomes a row reduction over [N, C, H*W]
(collapse_shape of the input is free on a contiguous tensor; the result is expanded back):

    linalg.generic {maps (d0, d1, d2, d3) -> (d0, d1, d2, d3), -> (d0, d1)} ins(%x : 8x64x56x56)
  → linalg.generic {maps (d0, d1, d2) -> (d0, d1, d2), -> (d0, d1)} ins(%c : 8x64x3136)

A reduction of every element (one loop left, 0-d result) runs in two stages so that threads
share it: the first P*m elements as [P, m] rows, reduced to P partial results (a row
reduction, split across threads), then the partials and the n - P*m tail into the result.
Sums are reassociated (accepted for floats, tolerance.py); max/min and integers stay exact.

A size-1 dim read at the constant 0 (a keepdim result, as torch-mlir's decompositions write
`x.mean(-1, keepdim=True)`) is dropped from its operand: the row strategy's partial sums of a
`(d0, d1, 0)` result do not vectorize.

    linalg.generic {maps (d0, d1, d2) -> (d0, d1, d2), -> (d0, d1, 0)} outs(%f : 2x37x1)
  → linalg.generic {maps (d0, d1, d2) -> (d0, d1, d2), -> (d0, d1)} outs(%g : 2x37), expand_shape

A body that reads `linalg.index`, or a map with any other expression, is left alone.
"""

import math
from dataclasses import dataclass

from versa.mlir import arith, ir

from ..common import linalg_builders as build
from ..common.base import Pass, collect
from .kernels.loop_groups import (
    cloned_generic,
    collapse_operand,
    loop_groups,
    loops_of,
    loops_read,
    map_attr,
    reassociation,
)
from .strategies.reduction import combiner_name

# Fewer elements than this stay one reduction: the two stages cost a fork and a second loop.
MIN_SPLIT = 1 << 15


def _rewrite(op: ir.Operation, rows: int) -> bool:
    kinds = ["reduction" if "reduction" in str(it) else "parallel" for it in op.attributes["iterator_types"]]
    if "reduction" not in kinds:
        return False
    body = op.regions[0].blocks[0]
    if any(o.operation.name == "linalg.index" for o in body.operations):
        return False
    if not all(isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape for v in op.operands):
        return False
    shapes = [ir.RankedTensorType(v.type).shape for v in op.operands]
    maps = [
        loops_read(ir.AffineMapAttr(m).value, s)
        for m, s in zip(op.attributes["indexing_maps"], shapes, strict=True)
    ]
    if any(m is None for m in maps):
        return False
    groups = loop_groups(kinds, maps)
    inputs = len(op.operands) - len(op.results)
    extent = math.prod(ir.RankedTensorType(op.operands[0].type).shape) if inputs else 0
    split = len(groups) == 1 and kinds[0] == "reduction" and extent >= MIN_SPLIT and _split_ok(op, maps)
    if len(groups) == len(kinds) and not split and not any(None in m for m in maps):
        return False
    group_of = {d: g for g, members in enumerate(groups) for d in members}
    new_kinds = [kinds[g[0]] for g in groups]
    with ir.InsertionPoint(op), op.location:
        operands, new_maps = [], []
        for v, m in zip(op.operands, maps, strict=True):
            collapsed, dims = collapse_operand(v, m, group_of)
            operands.append(collapsed)
            new_maps.append(dims)
        ins, outs = operands[:inputs], operands[inputs:]
        if split:
            results = [_two_stage(op, body, ins, outs[0], extent, rows)]
        else:
            attrs = [map_attr(len(groups), d) for d in new_maps]
            results = list(cloned_generic(ins, outs, attrs, new_kinds, body).results)
        for old, new, m in zip(op.results, results, maps[inputs:], strict=True):
            t = ir.RankedTensorType(old.type)
            if new.type != old.type:
                new = build.expand(new, t.shape, reassociation(m, group_of))
            old.replace_all_uses_with(new)
    op.erase()
    return True


def _split_ok(op: ir.Operation, maps: list[list[int | None]]) -> bool:
    """A 0-d result reduced from inputs read in order (all dims, one group), folded by a known combiner into a
    filled init (its value is the identity the partials start from)."""
    init = op.operands[len(op.operands) - 1].owner
    filled = isinstance(init, ir.Operation | ir.OpView) and init.name == "linalg.fill"
    ok = filled and combiner_name(op) is not None and len(op.results) == 1 and loops_of(maps[-1]) == []
    return ok and all(m == list(range(len(m))) for m in maps[:-1])


def _two_stage(op: ir.Operation, body: ir.Block, ins, init: ir.Value, n: int, rows: int) -> ir.Value:
    """[n] → [P, m] row partials → combined with the last n - P*m elements into `init` (0-d)."""
    m = n // rows
    element = ir.RankedTensorType(init.type).element_type
    partial_init = build.filled((rows,), element, init.owner.operands[0])  # the same identity

    def rows_of(v: ir.Value) -> ir.Value:
        return build.expand(build.extract(v, [0], [rows * m]), (rows, m), [[0, 1]])

    maps2 = [map_attr(2, [0, 1])] * len(ins) + [map_attr(2, [0])]
    stage1 = cloned_generic([rows_of(v) for v in ins], [partial_init], maps2, ["parallel", "reduction"], body)
    fold = getattr(arith, combiner_name(op).split(".")[1])  # the partials into the result
    maps1 = [map_attr(1, [0]).value, map_attr(1, []).value]
    (total,) = build.generic([stage1.results[0]], [init], maps1, ["reduction"], lambda a, b: [fold(a, b)])
    if n > rows * m:
        tail = [build.extract(v, [rows * m], [n - rows * m]) for v in ins]
        maps1 = [map_attr(1, [0])] * len(ins) + [map_attr(1, [])]
        total = cloned_generic(tail, [total], maps1, ["reduction"], body).results[0]
    return total


@dataclass(frozen=True)
class VersaCollapseReductions(Pass):
    name = "versa-collapse-reductions"
    summary = "Merge contiguous reduced loops of linalg reductions; split full reductions into rows"
    rows: int = 8  # P: rows of a full reduction's first stage (at least the threads)

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name == "linalg.generic"):
            _rewrite(op, self.rows)
