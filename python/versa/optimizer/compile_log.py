"""What the compiler logs during the optimizer's compile, collected as report data: each pass's
time (versa.compiler, info) and each kernel's strategy (versa.codegen, debug). The records are
caught by a handler of our own; where nobody else asked for that level, they go nowhere else."""

import contextlib
import logging
import re
from collections.abc import Iterator

from versa import log
from versa.passes.common.source_names import source_names

from .profile import TAG


@contextlib.contextmanager
def records(subject: str, level: int) -> Iterator[list[logging.LogRecord]]:
    """The records `versa.<subject>` logs at `level` and above while the block runs (the
    compiler logs each pass's time at info, codegen each kernel's strategy at debug)."""
    found: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append(record)

    logger, handler = log.get(subject), Collect(level)
    before, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    if not logger.isEnabledFor(level):  # nobody else asked for these records: only ours
        logger.setLevel(level)
        logger.propagate = False
    try:
        yield found
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)
        logger.propagate = propagate


def pass_times(records: list[logging.LogRecord]) -> list[dict]:
    """versa.compiler's `name seconds` records (compiler.run_passes at info level)."""
    found = []
    for record in records:
        args = record.args if isinstance(record.args, tuple) else ()
        if len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], float):
            found.append({"name": args[0], "seconds": args[1]})
    return found


def strategies(records: list[logging.LogRecord]) -> list[dict]:
    """versa-codegen's choice per kernel (`op at location: strategy`, at debug level)."""
    found = []
    for record in records:
        args = record.args if isinstance(record.args, tuple) else ()
        if len(args) != 3:
            continue
        op, location, strategy = args
        text = re.sub(r", zeros=\([^)]*\)", "", str(strategy))
        names = source_names(location)
        found.append(
            {
                "kind": "strategy",
                "subject": f"{op}: {type(strategy).__name__}",
                "message": text[:400],
                "location": ", ".join(n for n in names if not n.startswith(TAG)) or None,
            }
        )
    return found
