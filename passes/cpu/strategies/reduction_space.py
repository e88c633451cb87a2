"""The search space of row reductions (reduction.py): how wide each step's partial results are
and how many rows are reduced side by side.

    width   V: elements of partial results per step (1, 2 or 4 vectors)
    rows    R: rows reduced at once (a power of two dividing the rows, a thread's share too)

Invalid: R x V/lanes accumulators beyond the vector registers less two; R not dividing the
rows. The thread split is the analytic one (a row's share is whole rows already).
"""

from dataclasses import replace

from versa.targets import Target

from .reduction import ReductionStrategy
from .space import InvalidPoint, Knob, Point, Space


def _span(strategy: ReductionStrategy) -> int:
    """The rows R must divide: a thread's share where the threads split the row dim."""
    extents = strategy.extents
    if len(extents) == 2 and strategy.thread_tile:
        return strategy.thread_tile if extents[0] % strategy.thread_tile == 0 else 1
    return extents[-2] if len(extents) > 1 else 1


def reduction_space(strategy: ReductionStrategy, target: Target) -> Space:
    lanes, row = target.lanes(32), strategy.extents[-1]
    widths = [strategy.width, *(w for w in (lanes, 2 * lanes, 4 * lanes) if w <= row and w != strategy.width)]
    span, rows = _span(strategy), [strategy.rows]
    r = 1
    while r <= span:
        if span % r == 0 and r not in rows:
            rows.append(r)
        r *= 2
    return Space(
        (Knob("width", tuple(widths), "partial results per step"), Knob("rows", tuple(rows), "rows at once"))
    )


def reduction_at(strategy: ReductionStrategy, point: Point, target: Target) -> ReductionStrategy:
    space = reduction_space(strategy, target)
    space.check(point)
    p = {**space.default(), **point}
    lanes, row = target.lanes(32), strategy.extents[-1]
    width, rows = p["width"], p["rows"]
    if width % lanes or width < lanes:
        raise InvalidPoint(f"width {width} is not whole {lanes}-lane vectors")
    if rows < 1 or _span(strategy) % rows:
        raise InvalidPoint(f"{rows} rows do not divide the {_span(strategy)} rows")
    if rows * (width // lanes) > target.vector_registers - 2:
        raise InvalidPoint(
            f"{rows} x {width // lanes} accumulators do not fit {target.vector_registers} registers"
        )
    return replace(strategy, width=width, rows=rows, tail=row % width if row >= width else row)
