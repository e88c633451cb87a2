"""Conv2d with its elementwise consumer (bias, activation, residual add, batch-norm scale): the
epilogue runs on each output row while the row is in L1, never as a second pass over the
output (a 56x56x64 output is 800 KB: a second pass reads it back from L2 or memory).

    scf.forall oh0 in threads                          (conv.py's split)
      scf.for n ; scf.for oh                            (one output row: OW x F, a few KB)
        fill ; conv.py's register tiles over the row    (window loops, vector.fma)
        epilogue linalg.generic on the row, vector code (reads the row from L1)

The consumer is the root: it is tiled (threads, then rows) and the conv and its fill are fused
into its loops (`fuse_into_containing_op`, which fuses through a forall's shared outs: the row
loop is a forall marked serial, which versa-serial-foralls makes a for after bufferization). The
register level is conv.py's, applied to the row tile; the epilogue's row is vectorized along
its contiguous dim (F for NHWC, OW for NCHW), a ragged end split off at its own width.
"""

import math
from dataclasses import dataclass, replace

from versa.mlir import ir
from versa.targets import Target

from .consumers import epilogue_consumer
from .conv import LAYOUTS, ConvStrategy
from .script import SERIAL, Script
from .strategy import MASKS, Strategy, needed

_ROW = {"n": 1, "oh": 1}  # the epilogue's tile: one output row


@dataclass(frozen=True)
class ConvEpilogueStrategy(Strategy):
    conv: ConvStrategy
    lanes: int

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "ConvEpilogueStrategy | None":
        if op.name not in LAYOUTS or epilogue_consumer(op) is None:
            return None
        conv = ConvStrategy.for_op(op, target, threads)
        if conv is None or conv.extents[0] * conv.extents[conv.dims.index("oh")] == 1:
            return None  # one output row: no row loop to fuse into (versa-vectorize takes it)
        output = math.prod(ir.ShapedType(op.results[0].type).shape) * 4
        if conv.pack_filters and output <= target.l2 // 2:
            # Packed filters cannot be copied inside the row loop (once per row): conv.py takes
            # the conv, and versa-vectorize the epilogue, a second pass over an output in L2
            return None
        return ConvEpilogueStrategy(replace(conv, pack_filters=False, f_block=0), target.lanes(32))

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        conv, out = self.conv, self.conv.output_dims
        function, epilogue = s.parent(op, "func.func"), s.consumer(op)
        fill = s.match_ops(["linalg.fill"], s.producer(op, 2))
        extents = dict(zip(conv.dims, conv.extents, strict=True))
        if conv.thread_dim:
            sizes = [conv.thread_tile if d == conv.thread_dim else 0 for d in out]
            epilogue, threads = s.tile_forall(epilogue, sizes)
            op, fill = s.fuse_into(op, threads), s.fuse_into(fill, threads)
            extents[conv.thread_dim] = conv.thread_tile
        # One output row per step. Only the conv and its fill are fused (a greedy
        # `structured.fuse` would also pull in producers of the input or the filters, such as
        # conv_transpose2d's flipped filters, and recompute them for every row).
        row = needed([_ROW.get(d, 0) for d in out], [extents[d] for d in out])
        tile = op
        if any(row):  # else each thread's tile is one row already
            epilogue, rows = s.tile_forall(epilogue, row)
            s.fuse_into(op, rows)
            s.fuse_into(fill, rows)
            s.annotate(rows, SERIAL)  # a loop, not threads: see passes/serial_foralls.py
            s.patterns(function, ["canonicalization"])  # drops the unfused originals
            tile, fill = s.match_tag(*tag, rows), s.match_ops(["linalg.fill"], rows)
        extents.update(_ROW)
        windows = conv.emit_tile(s, tile, extents, fill, extents)
        s.patterns(function, MASKS)
        self._vectorize_epilogue(s, epilogue, [extents[d] for d in out])
        conv.finish(s, function, windows)

    def _vectorize_epilogue(self, s: Script, epilogue: str, extents: list[int]) -> None:
        """Vectors along the row's contiguous (last) dim, before the contraction patterns fold
        the tile's IR. A ragged end is split off first and vectorized at its own static width
        (a peeled one-trip remainder loop would fold away under its transform handle)."""
        last = len(extents) - 1
        main = extents[last] // self.lanes * self.lanes
        pieces = [(epilogue, extents[last])]
        if 0 < main < extents[last]:
            lower, upper = s.split(epilogue, last, main)
            pieces = [(lower, main), (upper, extents[last] - main)]
        for piece, width in pieces:
            vectors, _ = s.tile(piece, needed([*([1] * last), self.lanes], [*extents[:last], width]))
            s.vectorize(vectors)
