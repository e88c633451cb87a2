"""Transposes that move the innermost dim: square vector tiles, transposed in registers.

Read in output order, a transpose strides through its input one element per cache line
(4096² f32: ~1 GB/s). Here the output is cut into V x V tiles over the two dims that swap
contiguity (the output's innermost dim and the one fed by the input's innermost dim), V the
f32 lanes: a tile is V full-line vector reads, one in-register transpose (a 16x16 shuffle
network on AVX-512, `shuffle_1d` elsewhere) and V full-line writes, so every line moved is
used whole. The tiles are grouped in T x T blocks (T a power of two, its input and output
blocks within L2/8: 128 on a 1 MB L2): walking a whole output row of tiles would read V lines
from each of 4096 input rows, 16 KB apart, one page each: past the TLB's reach, and no
prefetcher follows it (4096² on one thread: 6.6 GB/s unblocked, 11.5 GB/s in 128-blocks).
Outer rows go across threads.

    scf.forall (outermost output dim, split across threads)
      scf.for ... scf.for (T x T blocks)
        scf.for ... scf.for (V x V tiles)
          vector.transfer_read x V → vector.transpose (shuffles) → vector.transfer_write x V

Only 32-bit elements and dims that V (or a smaller power of two, >= 4) divides; the rest
stays scalar loops.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script
from .strategy import MIN_PARALLEL_ELEMENTS, Strategy, even_chunk


def _lowering(lanes: int) -> str:
    return "shuffle_16x16" if lanes == 16 else "shuffle_1d"


@dataclass(frozen=True)
class TransposeStrategy(Strategy):
    tile: tuple[int, ...]  # per output dim: V on the two swapped dims, 1 elsewhere
    block: int  # T: the block of tiles on the two swapped dims; 0 = no block level
    thread_tile: int  # outermost output dim per thread; 0 = one thread
    lowering: str  # vector.transpose lowering strategy

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "TransposeStrategy | None":
        if op.name != "linalg.transpose":
            return None
        perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        out = ir.RankedTensorType(op.results[0].type)
        element = out.element_type
        if not isinstance(element, ir.FloatType | ir.IntegerType) or element.width != 32:
            return None
        rank = len(perm)
        if rank < 2 or perm[-1] == rank - 1:
            return None  # the innermost dim stays: rows are copied, no tile transpose needed
        inner, fed = rank - 1, perm.index(rank - 1)  # fed: the output dim the input's row feeds
        shape = list(out.shape)
        lanes = next(
            (
                v
                for v in (target.lanes(32), 8, 4)
                if v <= target.lanes(32) and not shape[inner] % v and not shape[fed] % v
            ),
            0,
        )
        if not lanes:
            return None
        tile = [1] * rank
        tile[inner] = tile[fed] = lanes
        thread_tile = 0
        if threads > 1 and math.prod(shape) >= MIN_PARALLEL_ELEMENTS:
            thread_tile = even_chunk(shape[0], tile[0], threads)
        extents = [thread_tile or shape[0], *shape[1:]]  # a thread's share
        return TransposeStrategy(
            tuple(tile), _block(extents[inner], extents[fed], lanes, target.l2), thread_tile, _lowering(lanes)
        )

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        function = s.parent(op, "func.func")
        if self.thread_tile:
            op, _ = s.tile_forall(op, [self.thread_tile] + [0] * (len(self.tile) - 1))
        if self.block:
            op, _ = s.tile(op, [self.block if t > 1 else 0 for t in self.tile])
        op, _ = s.tile(op, list(self.tile))
        s.vectorize(op)
        s.patterns(
            function,
            [
                "vector.transfer_permutation_patterns",
                f'vector.lower_transpose lowering_strategy = "{self.lowering}"',
                "canonicalization",
            ],
        )


def _block(a: int, b: int, lanes: int, l2: int) -> int:
    """T: the largest power of two with an input and an output T x T block in L2/8 that divides
    both extents `a` and `b` (tiles stay whole: static, so vector code); 0 where that is a
    single tile or covers both extents (no block level)."""
    block = lanes
    while 2 * (2 * block) ** 2 * 4 <= l2 // 8 and not a % (2 * block) and not b % (2 * block):
        block *= 2
    return 0 if block == lanes or (block >= a and block >= b) else block
