"""Depthwise convolutions (NHWC, no epilogue): conv.py's register tiles, with the zero fill of
the output fused into each output row.

    scf.forall oh0 in threads                            (conv.py's split)
      scf.for n ; scf.for oh                              (one output row: OW x C, a few KB)
        fill ; conv.py's register tiles over the row      (vector.fma along c, window kh, kw)

A depthwise conv does KH x KW FMAs per output element, so it streams memory: a separate fill
pass would write the whole output once more and make the conv read it back (3 passes over
the output instead of 1). The border strips that window_builders cuts off a padded input (so
that the interior reads the input in place) stay on one thread: a fork each would cost more
than their few outputs. The row loop is a forall marked serial, as in conv_epilogue, because
`fuse_into_containing_op` fuses a destination producer through a forall's shared outs only.
"""

from dataclasses import dataclass

from versa.mlir import ir
from versa.targets import Target

from ...common.window_builders import BORDER
from .consumers import epilogue_consumer
from .conv import ConvStrategy
from .script import SERIAL, Script
from .strategy import Strategy, needed

_ROW = {"n": 1, "oh": 1}


@dataclass(frozen=True)
class DepthwiseStrategy(Strategy):
    conv: ConvStrategy

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "Strategy | None":
        if op.name != "linalg.depthwise_conv_2d_nhwc_hwc" or epilogue_consumer(op) is not None:
            return None
        if BORDER in op.attributes:
            threads = 1  # a thin border strip (window_builders._regions): no fork of its own
        conv = ConvStrategy.for_op(op, target, threads)
        if conv is None or conv.extents[0] * conv._extent("oh") == 1:
            return conv  # one output row: conv.py's plain nest
        return DepthwiseStrategy(conv)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        conv = self.conv
        function = s.parent(op, "func.func")
        fill = s.match_ops(["linalg.fill"], s.producer(op, 2))
        extents = dict(zip(conv.dims, conv.extents, strict=True))
        if conv.thread_dim:
            op, threads = s.tile_forall(op, conv._sizes({conv.thread_dim: conv.thread_tile}))
            fill = s.fuse_into(fill, threads)
            extents[conv.thread_dim] = conv.thread_tile
        row = needed(conv._sizes(_ROW), [extents[d] for d in conv.dims])
        if any(row):
            op, rows = s.tile_forall(op, row)
            fill = s.fuse_into(fill, rows)
            s.annotate(rows, SERIAL)  # a loop, not threads: see passes/serial_foralls.py
        extents.update(_ROW)
        windows = conv.emit_tile(s, op, extents, fill, extents)
        conv.finish(s, function, windows)
