"""Grouped convolutions (1 < groups, not depthwise): the named conv in the body of the group
loop that `window_builders.conv_per_group` builds, one group's channels for one output row.

    scf.forall (n, oh, g) in (N, OH, groups)               (threads: the group loop itself)
      fill ; conv.py's register tiles on the group's row  (one thread: no nested forall)

The threads come from the group loop, so the conv's own strategy runs with one thread; with one
thread in all, or where the whole grouped conv saves less than a fork and join costs
(`strategy.threads_worth`, the model conv.py and matmul.py use), the loop is marked serial
(versa-serial-foralls makes it a loop). Groups are narrow (ResNeXt: 4 to 32 filters each):
when a group's filters fill less than the register tile's two vectors, the tile takes more
rows instead, so that half the vector registers still hold accumulators (independent FMAs
to cover the FMA latency).
"""

import math
from dataclasses import dataclass, replace

from versa.mlir import ir
from versa.targets import Target

from ...common.window_builders import GROUP_LOOP
from .conv import ConvStrategy, _divisor_or_max
from .script import SERIAL, Script
from .strategy import Strategy, threads_worth


def in_group_loop(op: ir.Operation) -> bool:
    parent = op.parent
    return parent is not None and parent.name == "scf.forall" and GROUP_LOOP in parent.attributes


@dataclass(frozen=True)
class GroupedConvStrategy(Strategy):
    conv: ConvStrategy  # the body's conv, on one thread
    threads: int

    @staticmethod
    def for_op(op: ir.Operation, target: Target, threads: int) -> "GroupedConvStrategy | None":
        if not in_group_loop(op):
            return None
        conv = ConvStrategy.for_op(op, target, 1)
        if conv is None:
            return None
        threads = _threads(op, conv, target, threads)
        rows, vec, cr = conv.register_tile
        rows_dim, vec_dim = conv._roles()
        vec_extent = conv._extent(vec_dim)
        lanes = target.lanes(32)
        vectors = -(-min(vec, vec_extent) // lanes)  # accumulators per row of the tile
        budget = max(1, target.vector_registers // (2 * vectors))
        rows_extent = conv._extent(rows_dim)
        rows = _divisor_or_max(min(budget, rows_extent), rows_extent)
        return GroupedConvStrategy(replace(conv, register_tile=(rows, vec, cr)), threads)

    def emit(self, s: Script, op: str, tag: tuple[str, str]) -> None:
        if self.threads == 1:
            s.annotate(s.parent(op, "scf.forall"), SERIAL)
        self.conv.emit(s, op, tag)


def _threads(op: ir.Operation, conv: ConvStrategy, target: Target, threads: int) -> int:
    """Threads for the whole grouped conv: the body's flops (one group, one output row) times
    the group loop's trip count; its bytes taken as the output's twice (written, and an input
    about as large read; the filters are small beside them)."""
    whole = ir.RankedTensorType(op.parent.results[0].type)
    body = math.prod(ir.RankedTensorType(op.results[0].type).shape)
    trips = math.prod(whole.shape) // max(body, 1)
    nbytes = 2 * math.prod(whole.shape) * whole.element_type.width // 8
    return threads_worth(2 * math.prod(conv.extents) * trips, nbytes, target, threads)
