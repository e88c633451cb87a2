"""What Versa tells a user about a compile while it runs: the `versa` logger hierarchy.

Every module logs through `logging.getLogger("versa.<subject>")` (`versa.compiler`: passes and
their times; `versa.jit`: LLVM's time and level; `versa.cache`: hits, misses, writes,
evictions; `versa.tuning`: tuning progress; `versa.codegen`: the strategy each op gets). Levels:

    warning   the default: problems only (a corrupt cache entry), nothing on a good compile
    info      each pass and its time, LLVM's, cache hits, misses and writes, tuning progress
    debug     more detail: cache keys, the strategy chosen per op

`VERSA_LOG=info` (`versa.environment.log_level`) sets the level, and each `-v` of a tool raises
it one step. Only then does Versa attach a handler of its own (stderr, `versa.<subject>:
<level>: message`, the diagnostics' style); otherwise records go wherever the application's
logging sends them, as a library's should (unconfigured, Python prints warnings and errors). The
warnings Versa gave before it had a log (`warnings.warn` from versa.compile) stay as they are.
"""

import logging
import sys

from versa import environment

ROOT = "versa"
_LEVELS = {"warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}
_handler: logging.Handler | None = None


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.name}: {record.levelname.lower()}: {record.getMessage()}"


def get(subject: str) -> logging.Logger:
    """The logger of one subject (`versa.<subject>`)."""
    return logging.getLogger(f"{ROOT}.{subject}")


def configure(verbosity: int = 0) -> None:
    """Set the `versa` logger's level from VERSA_LOG raised by `verbosity` steps (a tool's `-v`
    count), with a stderr handler when either asks for more than the default. ValueError for a
    VERSA_LOG that is not a level (checked before anything changes)."""
    global _handler
    named = environment.log_level()
    if named is None and verbosity <= 0:
        return
    order = list(_LEVELS)
    step = min(order.index(named or "warning") + max(verbosity, 0), len(order) - 1)
    logger = logging.getLogger(ROOT)
    logger.setLevel(_LEVELS[order[step]])
    if _handler is None:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(_Formatter())
        logger.addHandler(_handler)
        logger.propagate = False  # asked for here: printed once, not again by a root handler


def configure_from_environment() -> None:
    """`configure()` when Versa is imported; a VERSA_LOG that is no level is reported (as an
    error record) rather than raised, since it would stop every import, the tools' own included
    (which refuse it with exit code 1, `versa.tools.common.tool_main`)."""
    try:
        configure()
    except ValueError as err:
        logging.getLogger(ROOT).error("%s (ignored: logging stays at warning)", err)
