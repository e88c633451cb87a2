"""versa-pack-weights: constant f32 matmul weights packed into register panels at compile time.

The matmul strategy packs B's cache block into contiguous register panels on every call, and
where too few rows reuse a block (49 rows of a 1x1 conv at 7x7, a linear layer at batch 1) it
reads B in place, its rows N·4 bytes apart (strategies/packed_matmul.py). A constant B needs
neither: this pass lays it out once as the kernel reads it, panels [N/nr][K][nr] with nr the
register tile's width the strategy takes from the target, and rewrites the matmul into a
contraction on that constant which C reads as [M, N/nr, nr]:

    %c = linalg.matmul ins(%a, %w : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%zero)
  → %c3 = linalg.generic {versa.packed_b} ins(%a, %wp : tensor<128x768xf32>, tensor<96x768x32xf32>)
            outs(%zero3 : tensor<128x96x32xf32>)          (p, m, l, k): C[m,p,l] += A[m,k]·Bp[p,k,l]
    %c = tensor.collapse_shape %c3 [[0], [1, 2]]          (a view: the same bytes)

An elementwise epilogue the strategy fuses (bias, GELU, residual add) is rebuilt on the same
[M, N/nr, nr] view, its operands that run along N expanded alike, so it stays fused. Where nr
does not divide N the last panel is padded with zero columns and C is the first N columns of
[M, panels·nr] (a slice of the view; the epilogue then stays unfused). The unpacked constant is
dropped when nothing else reads it (weights are not kept twice).

Whether to pre-pack is the matmul strategy's choice (`MatmulStrategy.prepack`, a knob of its
search space, the analytic default `packed_matmul.prepacks`; a tuning database's point for the
op overrides it), so this pass asks the codegen dispatcher exactly as versa-codegen will. Runs
right before versa-codegen, and once more (`dynamic_rows`) before versa-static-tiles for
matmuls whose M is dynamic: those are packed as the strategy of the full tile (`dynamic_rows`
rows) would pack them, and static-tiles then cuts the packed contraction along m, so every tile
of the cascade reads the one packed weight (passed to the tile functions as an argument, as
weights are, so identical layers still share their tile functions; packing inside each tile
function would have needed a constant per function). Batch matmuls and dense_resource weights
keep today's path.
"""

from dataclasses import dataclass, field

import numpy as np
from versa import environment, targets
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir, linalg

from ..common import extents
from ..common import linalg_builders as build
from ..common.base import Pass, collect, target_option
from .strategies import load_database, select, tuned
from .strategies.consumers import epilogue_consumer
from .strategies.epilogue import EpilogueStrategy
from .strategies.matmul import MatmulStrategy
from .strategies.packed_matmul import MARK, constant_weight, pack


@dataclass(frozen=True)
class VersaPackWeights(Pass):
    name = "versa-pack-weights"
    summary = "Pack constant f32 matmul weights into register panels at compile time"
    threads: int = 0  # as versa-codegen's: the strategy's choice depends on it
    target: targets.Target = target_option()  # the panel width comes from it
    tuning_db: str = field(default_factory=environment.tuning_db)
    # 0: static matmuls (right before versa-codegen); N: matmuls whose M is dynamic, before
    # versa-static-tiles, packed as the strategy of its full tile (N rows) would pack them
    dynamic_rows: int = 0

    def run(self, module: ir.Operation) -> None:
        threads = self.threads or targets.default_threads()
        db = load_database(self.name, self.tuning_db)
        found: list[tuple[ir.Operation, int, bool]] = []
        wanted = lambda o: o.name == "linalg.matmul" and _dynamic_m(o) == bool(self.dynamic_rows)  # noqa: E731
        for op in collect(module, wanted):  # the probes add ops: not while walking
            if self.dynamic_rows:
                mm = self._probe(op, db, threads)
                fused = mm is not None and epilogue_consumer(op) is not None
            else:
                chosen = self._strategy(op, db, threads)
                mm, fused = getattr(chosen, "matmul", chosen), isinstance(chosen, EpilogueStrategy)
            if isinstance(mm, MatmulStrategy) and mm.prepack:
                found.append((op, mm.register_tile[1], fused))
        for op, nr, fused in found:
            _rewrite(op, nr, fused)

    def _probe(self, op: ir.Operation, db, threads: int) -> MatmulStrategy | None:
        """The matmul strategy of `op` (M dynamic) at `dynamic_rows` rows: the full tile
        versa-static-tiles will run it in, whose choice (pre-pack, and the panel width) every
        tile of the dynamic op then shares, as it shares the one packed weight. Asked of a
        static copy of the matmul, erased after, so that the choice is the dispatcher's own."""
        a, w, _ = op.operands
        if constant_weight(w) is None or not ir.RankedTensorType(w.type).has_static_shape:
            return None
        k, n = ir.RankedTensorType(w.type).shape
        element = build.element_of(a)
        with ir.InsertionPoint(op), op.location:
            rows = build.empty((self.dynamic_rows, k), element)
            zero = build.filled((self.dynamic_rows, n), element, 0.0)
            probe = linalg.matmul(rows, w, outs=[zero]).owner
        chosen = self._strategy(probe, db, threads)
        fill = zero.owner
        for dead in (probe, fill, fill.operands[0].owner, fill.operands[1].owner, rows.owner):
            dead.erase()
        return chosen if isinstance(chosen, MatmulStrategy) else None

    def _strategy(self, op: ir.Operation, db, threads: int):
        """The strategy versa-codegen would give `op`: the analytic one, or the database's point."""
        strategy = select(op, self.target, threads)
        if strategy is None or db is None:
            return strategy
        return tuned(op, strategy, self.target, db, threads)[0]


def _dynamic_m(op: ir.Operation) -> bool:
    """Whether `op`'s M (A's rows) is its one dynamic dim."""
    (m, k), (_, n) = (ir.RankedTensorType(v.type).shape for v in op.operands[:2])
    return ir.ShapedType.is_dynamic_size(m) and not any(map(ir.ShapedType.is_dynamic_size, (k, n)))


def _zero_fill(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "linalg.fill":
        return None
    return owner.operation


def _rewrite(op: ir.Operation, nr: int, fused: bool) -> None:
    """`op` (a matmul of a constant B) as the packed contraction; with `fused`, its epilogue
    consumer rebuilt on the [M, N/nr, nr] view too."""
    a, w, init = op.operands
    fill, constant = _zero_fill(init), constant_weight(w)
    if fill is None or constant is None:
        return
    (m, _), n = ir.RankedTensorType(a.type).shape, ir.RankedTensorType(w.type).shape[1]
    panels = -(-n // nr)  # the last one padded with zero columns where nr does not divide N
    consumer = epilogue_consumer(op) if fused and n % nr == 0 else None
    with ir.InsertionPoint(op), op.location:
        m = extents.dim(a, 0)  # an index value where M is dynamic (versa-static-tiles cuts it)
        value = constant.attributes["value"]  # read in place (pack copies it), a splat expanded (f64)
        weights = np.asarray(value) if not value.is_splat else elements_to_numpy(value)
        weights = weights.reshape(ir.RankedTensorType(w.type).shape).astype(np.float32, copy=False)
        packed = build.dense(pack(weights, nr))
        zero = build.filled((m, panels, nr), build.element_of(init), fill.operands[0])
        maps = [build.dims_map(4, d) for d in ((1, 3), (0, 3, 2), (1, 0, 2))]
        iterators = [build.PARALLEL] * 3 + [build.REDUCTION]
        (c3,) = build.generic([a, packed], [zero], maps, iterators, build.multiply_add)
        c3.owner.attributes[MARK] = ir.UnitAttr.get()
    if consumer is not None:
        with ir.InsertionPoint(consumer), consumer.location:
            result = build.collapse(_expanded(consumer, op, c3, nr), (m, n), [[0], [1, 2]])
        consumer.results[0].replace_all_uses_with(result)
        consumer.erase()
    else:  # C is the first N columns of [M, panels·nr] (a view: no copy where it is read)
        with ir.InsertionPoint(op), op.location:
            c = build.collapse(c3, (m, panels * nr), [[0], [1, 2]])
            op.results[0].replace_all_uses_with(c if panels * nr == n else build.extract(c, (0, 0), (m, n)))
    op.erase()
    empty = fill.operands[1].owner
    for dead in (fill, constant, empty):  # the unpacked weights are not kept beside the packed
        if not isinstance(dead, ir.Block) and not list(dead.results[0].uses):
            dead.erase()


def _expanded(consumer: ir.Operation, op: ir.Operation, c3: ir.Value, nr: int) -> ir.Value:
    """The elementwise `consumer` of `op` over loops (p, m, l) on `c3` [M, N/nr, nr]: each
    operand dim that runs along N becomes (p, l), expanded alike; its body moved over."""
    p, row, lane = (ir.AffineDimExpr.get(d) for d in range(3))
    inputs, maps = [], []
    operands = list(consumer.operands)
    for i, value in enumerate(operands):
        old = ir.AffineMapAttr(consumer.attributes["indexing_maps"][i]).value
        exprs, shape, groups = [], [], []
        sizes = ir.RankedTensorType(value.type).shape
        for d, expr in enumerate(old.results):
            position = expr.position if isinstance(expr, ir.AffineDimExpr) else None
            start = len(shape)
            if position == 1:  # along N: (panel, lane)
                exprs += [p, lane]
                shape += [sizes[d] // nr, nr]
                groups.append([start, start + 1])
            else:
                exprs.append(row if position == 0 else expr)
                shape.append(-1 - d)  # dim d's extent, read only where the operand is expanded
                groups.append([start])
        if value == op.results[0]:
            value = c3
        elif len(shape) != len(sizes):
            shape = [extents.dim(value, -1 - s) if s < 0 else s for s in shape]
            value = build.expand(value, shape, groups)
        inputs.append(value)
        maps.append(ir.AffineMap.get(3, 0, exprs))
    *ins, out = inputs
    iterators = ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{build.PARALLEL}>")] * 3)
    new = linalg.GenericOp(
        result_tensors=[out.type],
        inputs=ins,
        outputs=[out],
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=iterators,
    )
    old_block = consumer.regions[0].blocks[0]
    block = new.regions[0].blocks.append(*(a.type for a in old_block.arguments))
    for old_argument, argument in zip(old_block.arguments, block.arguments, strict=True):
        old_argument.replace_all_uses_with(argument)
    for body_op in list(old_block.operations):
        block.append(body_op.operation)
    return new.results[0]
