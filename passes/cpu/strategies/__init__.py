"""Codegen strategies: one module per op family, chosen by `select` from the op and the target.

A strategy turns one linalg op into a transform-dialect sequence (`script.Script`); the
`versa-codegen` pass (`cpu/codegen.py`) collects them for a module and runs the interpreter once.
"""

from collections.abc import Callable

from versa.mlir import ir
from versa.targets import Target
from versa.tuning.db import TuningDb

from ...common.base import PassError
from .conv import ConvStrategy
from .conv_epilogue import ConvEpilogueStrategy
from .conv_space import WRAPPERS, conv_at, conv_space, wrapped_at, wrapped_space
from .depthwise import DepthwiseStrategy
from .epilogue import EpilogueStrategy
from .grouped_conv import GroupedConvStrategy
from .matmul import OPS as MATMULS
from .matmul import MatmulStrategy
from .matmul_space import epilogue_at, epilogue_space, matmul_at, matmul_space
from .outer_reduction import OuterReductionStrategy
from .pool import PoolStrategy
from .reduction import ReductionStrategy
from .reduction_space import reduction_at, reduction_space
from .signature import Signature
from .space import InvalidPoint, Point, Space, from_json
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
    derived from a zero extent are meaningless (a zero register tile, an empty thread split).
    Dynamic ops get none, but for a matmul whose one dynamic dim is K (matmul.py runs it)."""
    static = all(
        isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape
        for v in (*op.operands, *op.results)
    )
    if not static and not _only_k_dynamic(op):
        return None
    if not has_points(op):
        return None
    for family in FAMILIES:
        strategy = family(op, target, threads)
        if strategy is not None:
            return strategy
    return None


def _only_k_dynamic(op: ir.Operation) -> bool:
    """Whether `op` is a matmul whose one dynamic dim is K (what `MatmulStrategy` takes besides
    static ops: a `versa-static-tiles` tile of a contraction over a dynamic reduction)."""
    if op.name not in MATMULS or len(op.results) != 1:
        return False
    values = (*op.operands[:2], op.results[0])
    if not all(isinstance(v.type, ir.RankedTensorType) for v in values):
        return False
    a, b, out = (v.type.shape for v in values)
    dynamic = [ir.ShapedType.is_dynamic_size(d) for d in (*a, *b, *out)]
    k_dims = (len(a) - 1, len(a) + len(b) - 2)
    return all(d == (i in k_dims) for i, d in enumerate(dynamic))


def has_points(op: ir.Operation) -> bool:
    """Whether the iteration space of the linalg op `op` (static shapes) has a point. Every loop
    of a valid structured op takes its extent from an operand or result dim indexed by that loop
    alone, and any other indexed dim must hold the loop's range: so the space is empty exactly
    when some operand or result has a dim of size 0."""
    return all(0 not in ir.RankedTensorType(v.type).shape for v in (*op.operands, *op.results))


# Each family's search space (the autotuner's knobs) and how it rebuilds itself at a point;
# a family not named here has no knobs yet: its analytic choice is its only point.
_SPACES: dict[type, tuple[Callable, Callable]] = {
    MatmulStrategy: (matmul_space, matmul_at),
    EpilogueStrategy: (epilogue_space, epilogue_at),
    ConvStrategy: (conv_space, conv_at),
    ReductionStrategy: (reduction_space, reduction_at),
    **dict.fromkeys(WRAPPERS, (wrapped_space, wrapped_at)),
}


def search_space(strategy: Strategy, target: Target) -> Space:
    """The knobs of `strategy` (its analytic choice is their default point)."""
    family = _SPACES.get(type(strategy))
    return family[0](strategy, target) if family else Space()


def strategy_at(strategy: Strategy, point: Point, target: Target) -> Strategy:
    """`strategy` rebuilt at `point` (knobs left out keep their default); raises
    `space.InvalidPoint` for a point it cannot emit."""
    family = _SPACES.get(type(strategy))
    if family is None:
        Space().check(point)
        return strategy
    return family[1](strategy, point, target)


def load_database(pass_name: str, path: str) -> TuningDb | None:
    """The tuning database at `path` (None for no path); a malformed one is the pass's error."""
    if not path:
        return None
    try:
        return TuningDb.load(path)
    except ValueError as err:
        raise PassError(f"'{pass_name}' {err}") from None


def tuned(op: ir.Operation, strategy: Strategy, target: Target, db: TuningDb, threads: int):
    """(`strategy` at the database's point for `op`, a note on what was taken). versa-codegen and
    versa-pack-weights both ask here, so pre-packing decides exactly as the code it packs for. A
    point written for other code (`InvalidPoint`) leaves the analytic choice; the note says why."""
    entry = db.lookup(target, threads, Signature.of(op, strategy).key)
    if entry is None:
        return strategy, ""
    try:
        return strategy_at(strategy, from_json(entry.point), target), f"tuned {entry.op}: {entry.point}"
    except InvalidPoint as err:
        return strategy, f"tuned point for {entry.op} not taken: {err}"
