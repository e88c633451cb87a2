"""Max and sum pooling (NCHW and NHWC): threads over the batch or the channels, and the window
loops moved outside the innermost output dim, so the innermost loop streams along a row.

    scf.forall (n or c chunk)                          (threads)
      n, c|oh, oh|ow, kh, kw, ow|c                     (loops after the interchange)
        out[.., ow|c] = max(out[.., ow|c], x[.., oh*s + kh, ow*s + kw | c])

LLVM's loop vectorizer turns that inner loop into vector code (strided loads for an NCHW row
with stride > 1). Upstream's decompose + vectorize of the NCHW pooling tile was tried: it
extracts every element separately and ran 3x slower than these loops.
"""

import math
from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from .script import Script
from .strategy import MIN_PARALLEL_ELEMENTS, Strategy

# Loops (n, c, oh, ow, kh, kw) in NCHW and (n, oh, ow, c, kh, kw) in NHWC: either way the
# fourth is the contiguous output dim, and it goes inside the window loops.
INTERCHANGE = (0, 1, 2, 4, 5, 3)
OPS = (
    "linalg.pooling_nchw_max",
    "linalg.pooling_nchw_sum",
    "linalg.pooling_nhwc_max",
    "linalg.pooling_nhwc_sum",
)


@dataclass(frozen=True)
class PoolStrategy(Strategy):
    interchange: tuple[int, ...]  # loop order: the window loops outside the vector dim
    thread_tile: tuple[int, ...]  # per thread, 0 = untiled; () = one thread

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "PoolStrategy | None":
        if op.name not in OPS:
            return None
        out = list(ir.RankedTensorType(op.results[0].type).shape)
        thread_tile: tuple[int, ...] = ()
        if threads > 1 and math.prod(out) >= MIN_PARALLEL_ELEMENTS:
            dim = next((d for d in (0, 1) if out[d] >= threads), None)
            if dim is not None:
                sizes = [0] * 4
                sizes[dim] = -(-out[dim] // threads)
                thread_tile = tuple(sizes)
        return PoolStrategy(INTERCHANGE, thread_tile)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        if self.thread_tile:
            op, _ = s.tile_forall(op, list(self.thread_tile))
        op = s.generalize(op)
        s.interchange(op, list(self.interchange))
