"""Reductions over outer dims (reduce_sum over axis 0, sums over the batch of a [N, C] tensor,
the middle axis of [B, N, C]): vector code across the innermost dim, which is kept, rows
streamed in order.

    scf.forall over the outermost kept dim, else over column chunks      (threads)
      scf.for over the reduced dims, R rows at a time
        scf.for j step W                                                  (W: a few vectors)
          y[j:j+W] += x[i, j:j+W] + ... + x[i+R-1, j:j+W]                 (vertical adds)

Each step reads R contiguous row segments and adds them into the output segment, which stays
in L1 between the row blocks: every input line is read once, in address order within a row.
Reading down the columns instead (all rows of W columns, then the next W) keeps the sums in
registers but jumps a row's length per load: for 4096-wide rows a page per load, past the
TLB's reach and the prefetchers' (scalar loops in row order, LLVM-vectorized, on one thread:
42% of triad for 4096²). R, W and the thread chunks divide their extents (whole tiles: static,
so vector code); shapes they do not divide stay for the loop lowering.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .reduction import combiner_name
from .script import Script
from .strategy import LOWER_OUTER_REDUCTION, MIN_PARALLEL_ELEMENTS, Strategy, even_chunk, vector_body

ROWS = (8, 4, 2, 1)  # R, the first that divides the innermost reduced extent


def _outer_reduction(op: ir.Operation) -> tuple[list[int], list[bool]] | None:
    """(extents, reduced per loop) of a generic that reduces outer loops and keeps the innermost
    one, reading its inputs in loop order; else None."""
    if op.name != "linalg.generic" or len(op.results) != 1 or not vector_body(op):
        return None
    reduced = ["reduction" in str(it) for it in op.attributes["iterator_types"]]
    if len(reduced) < 2 or reduced[-1] or not any(reduced):
        return None
    if combiner_name(op) is None:
        return None
    identity = ir.AffineMap.get_identity(len(reduced))
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    if any(m != identity for m in maps[: len(op.operands) - 1]):
        return None  # every input read in loop order (its rows contiguous)
    return list(ir.RankedTensorType(op.operands[0].type).shape), reduced


@dataclass(frozen=True)
class OuterReductionStrategy(Strategy):
    tiles: tuple[int, ...]  # per loop: R on the innermost reduced, W on the innermost, else 1
    thread_dim: int  # the loop split across threads
    thread_tile: int  # its extent per thread; 0 = one thread

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "OuterReductionStrategy | None":
        found = _outer_reduction(op)
        if found is None:
            return None
        extents, reduced = found
        kept = [d for d, r in enumerate(reduced) if not r]
        outer, inner = kept[0], len(extents) - 1
        lanes = target.lanes(32)
        thread_tile = 0
        if threads > 1 and math.prod(extents) >= MIN_PARALLEL_ELEMENTS:
            if outer != inner and extents[outer] >= threads:
                thread_tile = -(-extents[outer] // threads)
            else:
                outer, thread_tile = inner, even_chunk(extents[inner], lanes, threads)
        columns = thread_tile if outer == inner and thread_tile else extents[inner]
        width = next((w for w in (4 * lanes, 2 * lanes, lanes) if columns % w == 0), 0)
        if not width:
            return None
        last = max(d for d, r in enumerate(reduced) if r)
        tiles = [1] * len(extents)
        tiles[inner] = width
        tiles[last] = next(r for r in ROWS if extents[last] % r == 0)
        return OuterReductionStrategy(tuple(tiles), outer, thread_tile)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        function = s.parent(op, "func.func")
        tiles = list(self.tiles)
        if self.thread_tile:
            sizes = [self.thread_tile if d == self.thread_dim else 0 for d in range(len(tiles))]
            op, _ = s.tile_forall(op, sizes)
            if self.thread_dim != len(tiles) - 1:
                tiles[self.thread_dim] = 1
        op, _ = s.tile(op, tiles)
        s.vectorize(op)
        s.patterns(function, LOWER_OUTER_REDUCTION)
