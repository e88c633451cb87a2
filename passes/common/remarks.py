"""Optimisation remarks: what a pass did (`applied`) or declined (`missed`) to an op, and why.

MLIR's own remarks (`mlir::remark::missed(loc, ...)`, mlir-opt's `--remarks-filter-missed`)
are C++ only: the Python bindings can emit errors (`Location.emit_error`) but no remark, and
the C API has no remark engine. So Versa's passes emit them as records of the `versa.remarks`
logger at debug level, each carrying a `Remark`; they cost one `isEnabledFor` check while
nobody listens, and a pass computes a remark's numbers only after `enabled()` said yes.
Listeners: `collected()` (versa-opt's `--remarks-filter*`, the optimizer's report), or
`VERSA_LOG=debug`, which prints them as log lines. The text is mlir-opt's:

    model.mlir:7:8: remark: [Missed] versa-fuse | Category:fusion | Reason="...", producer="versa.exp"
"""

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from versa import log
from versa.mlir import ir

APPLIED, MISSED = "applied", "missed"
_HEADINGS = {APPLIED: "Passed", MISSED: "Missed"}  # mlir-opt's names of the two kinds
_logger = log.get("remarks")


@dataclass(frozen=True)
class Remark:
    pass_name: str  # the flag of the pass that made it: versa-fuse, versa-codegen
    kind: str  # APPLIED or MISSED
    category: str  # what it is about: fusion, strategy, threads, packing, fallback
    location: str  # the op's location, as MLIR prints it (`loc("file":3:8)`, named locations)
    reason: str  # one short sentence
    values: tuple[tuple[str, str | int | float], ...] = ()  # the numbers behind the reason

    def message(self) -> str:
        """The remark as mlir-opt prints one after `file:line:col: remark: `."""
        values = ", ".join(f"{key}={_quoted(value)}" for key, value in self.values)
        reason = f'Reason="{self.reason}"' + (f", {values}" if values else "")
        return f"[{_HEADINGS[self.kind]}] {self.pass_name} | Category:{self.category} | {reason}"

    def __str__(self) -> str:
        return f"{self.location}: {self.message()}"


def _quoted(value: str | int | float) -> str:
    return (
        f'"{value}"' if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)
    )


def enabled() -> bool:
    """Whether anyone listens: check it before computing what a remark would say."""
    return _logger.isEnabledFor(logging.DEBUG)


def emit(pass_name: str, kind: str, category: str, location: ir.Location, reason: str, **values) -> None:
    """Emit one remark at `location` (the op's), with `values` its numbers, names or sizes."""
    if not _logger.isEnabledFor(logging.DEBUG):
        return
    remark = Remark(pass_name, kind, category, str(location), reason, tuple(values.items()))
    _logger.debug("%s", remark, extra={"remark": remark})


def missed(pass_name: str, category: str, location: ir.Location, reason: str, **values) -> None:
    emit(pass_name, MISSED, category, location, reason, **values)


def applied(pass_name: str, category: str, location: ir.Location, reason: str, **values) -> None:
    emit(pass_name, APPLIED, category, location, reason, **values)


@contextlib.contextmanager
def collected() -> Iterator[list[Remark]]:
    """The remarks emitted while the block runs. Where nobody else asked for debug records,
    they go to this list only (not to the log's handler or the root logger's)."""
    found: list[Remark] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            remark = getattr(record, "remark", None)
            if remark is not None:
                found.append(remark)

    handler = Collect(logging.DEBUG)
    level, propagate = _logger.level, _logger.propagate
    _logger.addHandler(handler)
    if not _logger.isEnabledFor(logging.DEBUG):
        _logger.setLevel(logging.DEBUG)
        _logger.propagate = False
    try:
        yield found
    finally:
        _logger.removeHandler(handler)
        _logger.setLevel(level)
        _logger.propagate = propagate


@dataclass(frozen=True)
class Filter:
    """Which remarks a user asked for, as mlir-opt's flags say it: a regular expression searched
    in `pass:category` (`versa-codegen:threads`) for every kind (`--remarks-filter`), and one
    per kind (`--remarks-filter-passed`, `--remarks-filter-missed`); None asks for none."""

    all: str | None = None
    passed: str | None = None
    missed: str | None = None

    def active(self) -> bool:
        return any(p is not None for p in (self.all, self.passed, self.missed))

    def wants(self, remark: Remark) -> bool:
        kind = self.passed if remark.kind == APPLIED else self.missed
        subject = f"{remark.pass_name}:{remark.category}"
        return any(p is not None and re.search(p, subject) for p in (self.all, kind))
