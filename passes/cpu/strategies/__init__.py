"""Codegen strategies: one module per op family, chosen by `select` from the op and the target.

A strategy turns one linalg op into a transform-dialect sequence (`script.Script`); the
`versa-codegen` pass (`cpu/codegen.py`) collects them for a module and runs the interpreter once.
"""

from collections.abc import Callable

from versa.mlir import ir
from versa.targets import Target

from .conv import ConvStrategy
from .conv_epilogue import ConvEpilogueStrategy
from .depthwise import DepthwiseStrategy
from .epilogue import EpilogueStrategy
from .grouped_conv import GroupedConvStrategy
from .matmul import MatmulStrategy
from .outer_reduction import OuterReductionStrategy
from .pool import PoolStrategy
from .reduction import ReductionStrategy
from .strategy import Strategy
from .transpose import TransposeStrategy
from .window import WindowStrategy

# In order: the first strategy that accepts an op handles it.
FAMILIES: tuple[Callable[[ir.Operation, Target, int], Strategy | None], ...] = (
    GroupedConvStrategy.for_op,
    EpilogueStrategy.for_op,
    MatmulStrategy.for_op,
    ConvEpilogueStrategy.for_op,
    DepthwiseStrategy.for_op,
    ConvStrategy.for_op,
    WindowStrategy.for_op,
    ReductionStrategy.for_op,
    OuterReductionStrategy.for_op,
    TransposeStrategy.for_op,
    PoolStrategy.for_op,
)


def select(op: ir.Operation, target: Target, threads: int) -> Strategy | None:
    """The strategy for `op` on `target` with `threads` threads, or None (left to later passes).
    An op without iteration points gets none: its plain loops never run, and tile sizes
    derived from a zero extent are meaningless (a zero register tile, an empty thread split)."""
    if not all(
        isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape
        for v in (*op.operands, *op.results)
    ):
        return None
    if not has_points(op):
        return None
    for family in FAMILIES:
        strategy = family(op, target, threads)
        if strategy is not None:
            return strategy
    return None


def has_points(op: ir.Operation) -> bool:
    """Whether the iteration space of the linalg op `op` (static shapes) has a point. Every loop
    of a valid structured op takes its extent from an operand or result dim indexed by that loop
    alone, and any other indexed dim must hold the loop's range: so the space is empty exactly
    when some operand or result has a dim of size 0."""
    return all(0 not in ir.RankedTensorType(v.type).shape for v in (*op.operands, *op.results))
