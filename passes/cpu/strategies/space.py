"""The autotuner's view of a strategy: typed knobs, points, and the default point.

A strategy's analytic choice (tile sizes derived from the target description) is one point of a
space of choices its transform sequence can take: tile sizes at each level, the register tile's
shape, packing, the dim threads split, the order of the register loops. Each strategy family
declares that space (`Strategy.space`) and builds itself at any point (`Strategy.at`); a point
the strategy cannot emit (more accumulators than vector registers, a thread split that leaves a
partial register tile, packing a ragged panel) raises `InvalidPoint` there, before anything is
compiled. Points are plain JSON values (ints, strings, bools, lists), so a tuning database can
hold them and a later compile rebuild the same strategy from them.
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Point = Mapping[str, Any]


class InvalidPoint(ValueError):
    """A point the strategy cannot emit; the message says which constraint it breaks."""


@dataclass(frozen=True)
class Knob:
    """One choice: its name, the candidate values (today's analytic value first) and what it
    controls, for `versa-tune --list-space` and the docs."""

    name: str
    values: tuple
    doc: str = ""

    @property
    def default(self) -> Any:
        return self.values[0]


@dataclass(frozen=True)
class Space:
    """The knobs of one op's strategy. An empty space has one point: the default."""

    knobs: tuple[Knob, ...] = ()

    def default(self) -> dict[str, Any]:
        return {k.name: k.default for k in self.knobs}

    def size(self) -> int:
        count = 1
        for knob in self.knobs:
            count *= len(knob.values)
        return count

    def neighbours(self, point: Point) -> Iterator[dict[str, Any]]:
        """Every point that differs from `point` in one knob, knob by knob in declared order."""
        for knob in self.knobs:
            for value in knob.values:
                if value != point.get(knob.name):
                    yield {**point, knob.name: value}

    def check(self, point: Point) -> None:
        """Raise InvalidPoint for a knob this space lacks (a value not among the candidates is
        allowed: a database written by another version may hold one; the strategy's `at`
        judges it)."""
        names = {k.name for k in self.knobs}
        unknown = sorted(set(point) - names)
        if unknown:
            raise InvalidPoint(f"no knob {', '.join(unknown)} (knobs: {', '.join(sorted(names)) or 'none'})")

    def describe(self) -> str:
        if not self.knobs:
            return "  (no knobs: the analytic choice only)"
        return "\n".join(f"  {k.name}: {list(k.values)}  # {k.doc}" for k in self.knobs)


def as_json(value: Any) -> Any:
    """A knob value as JSON keeps it: tuples become lists (and `from_json` turns them back)."""
    return list(value) if isinstance(value, tuple) else value


def from_json(point: Mapping[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in point.items()}


def candidates(default: int, extent: int, multiple: int, sizes: tuple[int, ...]) -> tuple[int, ...]:
    """Cache-tile candidates for a dim: the default first, then the whole extent and each of
    `sizes` below it that is a multiple of `multiple` (other sizes only add remainder kernels)."""
    found = [default]
    for size in (extent, *sizes):
        if 0 < size <= extent and size % multiple == 0 and size not in found:
            found.append(size)
    return tuple(found)
