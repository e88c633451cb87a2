"""Reductions over the innermost dimension (reduce_sum/max/mean over the last axis, the
max and sum of softmax, the means of layer_norm): rows across threads, each row reduced in
vector-wide partial results, then one horizontal combine.

    scf.forall over the outermost parallel dim                       (threads)
      scf.for over the other parallel dims, one row at a time
        acc = splat(identity) : vector<V>
        scf.for j step V { acc = combine(acc, x[row, j:j+V]) }        (vertical: V lanes)
        y[row] = reduce(acc)                                          (one horizontal reduce)

V is a few vector widths (independent accumulators hide the add latency), preferably one that
divides the row and is shorter than it (a one-trip loop would fold away with its handle). A
ragged row is split (`structured.split` on the reduced dim) into the longest multiple of V,
reduced as above, and a tail shorter than V that is folded into the same row results as one
static vector (vector<R x tail>, so still no scalar loop); a row shorter than a vector is all
tail. Outer-dim reductions (iterators ending in "parallel") vectorize across the inner dim
elsewhere.
"""

from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script
from .strategy import Strategy, vector_body

# Combiners that `tile_reduction_using_for` knows the identity of.
_COMBINERS = (
    "arith.addf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.mulf",
    "arith.addi",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",  # ui8 max pools (pool_regions' views of bytes)
    "arith.minui",
)
# Row reduction to a vector of partial results, then to a scalar.
_LOWER_REDUCTION = (
    'vector.reorder_multi_reduction_dims lowering_strategy = "innerreduction"',
    'vector.multi_reduction_flattening lowering_strategy = "innerreduction"',
    'vector.multi_reduction_unrolling lowering_strategy = "innerreduction"',
    "canonicalization",
)


def _row_reduction(op: ir.Operation) -> list[int] | None:
    """The loop extents of a generic whose only reduction is its innermost loop, else None."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return None
    iterators = [str(it) for it in op.attributes["iterator_types"]]
    if len(iterators) < 2 or "reduction" not in iterators[-1]:
        return None
    if any("parallel" not in it for it in iterators[:-1]):
        return None
    if not vector_body(op) or combiner_name(op) is None:
        return None
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    source = ir.RankedTensorType(op.operands[0].type).shape
    if maps[0] != ir.AffineMap.get_identity(len(iterators)):
        return None  # the first input must be read in loop order (the row is contiguous)
    if not all(isinstance(e, ir.AffineDimExpr) for e in maps[-1].results):
        return None  # a keepdim result (d0, d1, 0): its tiled partial sums do not vectorize
    return list(source)


def combiner_name(op: ir.Operation) -> str | None:
    """The op that folds each element into the accumulator (`arith.addf`, ...) when it is one
    whose identity `tile_reduction_using_for` and the vectorizer know, else None."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    combiner = body[-1].operands[0].owner if len(body) >= 2 else None
    accumulator = block.arguments[len(block.arguments) - 1]
    if not isinstance(combiner, ir.OpView) or combiner.operation.name not in _COMBINERS:
        return None
    return combiner.operation.name if accumulator in list(combiner.operands) else None


def _rows(extents: list[int], thread_tile: int, width: int, target: Target) -> int:
    """R rows reduced side by side: R streams from memory at once (one row at a time is one
    stream, and a core's prefetchers fetch further ahead on several), with their R x V/lanes
    accumulators in half the vector registers. A power of two that divides the rows (and a
    thread's share of them, when the threads split the same dim)."""
    budget = target.vector_registers // 2 // max(1, width // target.lanes(32))
    rows = extents[-2]
    if len(extents) == 2 and thread_tile:
        rows = thread_tile if extents[0] % thread_tile == 0 else 1
    r = 1
    while r * 2 <= budget and rows % (r * 2) == 0:
        r *= 2
    return r


@dataclass(frozen=True)
class ReductionStrategy(Strategy):
    extents: tuple[int, ...]  # loop extents; the last one is reduced
    thread_tile: int  # rows of the outermost dim per thread; 0 = no forall
    width: int  # V: elements of partial results per step
    rows: int = 1  # R: rows of the innermost parallel dim reduced side by side
    tail: int = 0  # the last elements of each row, fewer than V, reduced as one vector

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "ReductionStrategy | None":
        extents = _row_reduction(op)
        if extents is None:
            return None
        lanes, row = target.lanes(32), extents[-1]
        widths = (4 * lanes, 2 * lanes, lanes)
        width = next((w for w in widths if row % w == 0 and w < row), 0)
        width = width or next((w for w in widths if w <= row), lanes)
        tail = row % width if row >= width else row
        per_thread = -(-extents[0] // threads)
        thread_tile = per_thread if threads > 1 and per_thread < extents[0] else 0
        rows = _rows(extents, thread_tile, width, target)
        return ReductionStrategy(tuple(extents), thread_tile, width, rows, tail)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        function = s.parent(op, "func.func")
        rank = len(self.extents)
        if self.thread_tile:
            op, _ = s.tile_forall(op, [self.thread_tile] + [0] * (rank - 1))
        rows = [1 if e > 1 else 0 for e in self.extents[:-1]]
        span = self.thread_tile if rank == 2 and self.thread_tile else self.extents[-2]
        rows[-1] = self.rows if self.rows < span else 0  # (0: the whole span, one tile)
        if self.thread_tile and self.thread_tile == 1:
            rows[0] = 0
        op, _ = s.tile(op, [*rows, 0])
        main = self.extents[-1] - self.tail
        if self.tail and main:
            op, tail = s.split(op, rank - 1, main)
            s.vectorize(tail)
        elif self.tail:
            op = ""  # the whole row is the tail
        if op and main == self.width:
            s.vectorize(op)  # one vector per row: no loop
        elif op:
            init, partial, combine, loop = s.tile_reduction(op, [0] * (rank - 1) + [self.width])
            for part in (init, partial, combine):
                s.vectorize(part)
        s.patterns(
            function, ["vector.reduction_to_contract", "linalg.tiling_canonicalization", "canonicalization"]
        )
        if op and main > self.width:
            s.hoist(loop)
        s.patterns(function, _LOWER_REDUCTION)
