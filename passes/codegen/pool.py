"""Max and sum pooling (NCHW and NHWC): threads over the batch and channels, then output
rows cut into vector-wide strips, decomposed to 1-D pooling and vectorized.

    scf.forall (n, c chunk)                             (threads)
      scf.for n ; scf.for c ; scf.for oh ; scf.for ow step V ; scf.for kh (window rows)
        linalg.pooling_n?w_* (decomposed) → vector reads of the window columns, max/add

The window (kh, kw) stays whole per strip: kh is a loop of 1-D poolings, kw is unrolled by
the vectorizer into strided slices of one read.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script
from .strategy import Strategy

OPS = (
    "linalg.pooling_nchw_max",
    "linalg.pooling_nchw_sum",
    "linalg.pooling_nhwc_max",
    "linalg.pooling_nhwc_sum",
)
_MIN_PARALLEL_ELEMENTS = 1 << 15


@dataclass(frozen=True)
class PoolStrategy(Strategy):
    interchange: tuple[int, ...]  # loop order: the window loops outside the vector dim
    thread_tile: tuple[int, ...]  # per thread, 0 = untiled; () = one thread

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "PoolStrategy | None":
        if op.name not in OPS:
            return None
        out = list(ir.RankedTensorType(op.results[0].type).shape)
        # NCHW loops (n, c, oh, ow, kh, kw): ow innermost. NHWC (n, oh, ow, c, kh, kw): c.
        interchange = (0, 1, 2, 4, 5, 3) if "nchw" in op.name else (0, 1, 2, 4, 5, 3)
        thread_tile: tuple[int, ...] = ()
        if threads > 1 and math.prod(out) >= _MIN_PARALLEL_ELEMENTS:
            dim = next((d for d in (0, 1) if out[d] >= threads), None)
            if dim is not None:
                sizes = [0] * 4
                sizes[dim] = -(-out[dim] // threads)
                thread_tile = tuple(sizes)
        return PoolStrategy(interchange, thread_tile)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        if self.thread_tile:
            op, _ = s.tile_forall(op, list(self.thread_tile))
        op = s.generalize(op)
        s.interchange(op, list(self.interchange))
