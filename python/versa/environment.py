"""The environment variables Versa reads, read here and nowhere else.

Each is a default for an option a caller can also pass (`versa.options.CompileOptions`), so a
run is reproduced from its options alone: a pass never reads the environment.

    VERSA_HOST_TARGET=x86-64-v3   `host` is that ISA level (this CPU must run it): the tool
                                  chain and the suite as an AVX2 host sees them (versa.targets)
    VERSA_NUM_THREADS=N           threads of -O3 code where the options say 0 (every core)
    VERSA_CODEGEN_STRICT=1        a codegen strategy whose script fails raises (tests)
    VERSA_TUNING_DB=PATH          the tuning database lower-to-llvm reads (versa.tuning.db)
    VERSA_CACHE_DIR=PATH|off      the compile cache's folder (default $XDG_CACHE_HOME/versa, else
                                  ~/.cache/versa); `off` (or 0, none, "") disables it (versa.cache)
    VERSA_CACHE_SIZE=N[KMG]       the cache's size limit in bytes (default 2G; versa.cache)
    VERSA_MEMORY_CACHE_SIZE=N[KMG]  the bytes a process keeps in compiled torch graphs for reuse
                                  (default: a quarter of its memory; frontends.torch.executable_cache)
    VERSA_LOG=warning|info|debug  what Versa logs to stderr (versa.log; default warning)
    VERSA_HOT_SHAPES=N            shapes of a dynamic `versa.compile` that may get a static compile
                                  of their own once hot (default 4; 0: none; frontends.torch.hot_shapes)
    VERSA_FOLLOW_LOAD=1           OpenMP teams shrink to the cores other jobs leave free (a
                                  shared machine; versa.cpu.openmp); default: a fixed team

The cache, the log and the team policy are not compile options: they change how long a compile
or a call takes and what it prints, never the code a compile produces.
"""

import os
import re
from pathlib import Path

HOST_TARGET = "VERSA_HOST_TARGET"
NUM_THREADS = "VERSA_NUM_THREADS"
CODEGEN_STRICT = "VERSA_CODEGEN_STRICT"
TUNING_DB = "VERSA_TUNING_DB"
CACHE_DIR = "VERSA_CACHE_DIR"
CACHE_SIZE = "VERSA_CACHE_SIZE"
MEMORY_CACHE_SIZE = "VERSA_MEMORY_CACHE_SIZE"
LOG = "VERSA_LOG"
FOLLOW_LOAD = "VERSA_FOLLOW_LOAD"
HOT_SHAPES = "VERSA_HOT_SHAPES"
CACHE_OFF = ("off", "0", "none", "false", "no")
DEFAULT_CACHE_SIZE = 2 << 30
LOG_LEVELS = ("warning", "info", "debug")
_SIZE = re.compile(r"(\d+)\s*([kmgt]?)(?:i?b)?", re.IGNORECASE)


def host_target() -> str:
    """The ISA level `host` is pinned to, or "" for the detected CPU."""
    return os.environ.get(HOST_TARGET, "").strip()


def num_threads() -> int:
    """VERSA_NUM_THREADS when it is a positive count, else 0."""
    text = os.environ.get(NUM_THREADS, "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else 0


def codegen_strict() -> bool:
    return bool(os.environ.get(CODEGEN_STRICT))


def follow_load() -> bool:
    """Whether OpenMP team sizes follow the machine's load (VERSA_FOLLOW_LOAD set, not 0/off)."""
    return os.environ.get(FOLLOW_LOAD, "").strip().lower() not in ("", *CACHE_OFF)


def hot_shapes(default: int) -> int:
    """VERSA_HOT_SHAPES when it is a count (0 included), else `default`."""
    text = os.environ.get(HOT_SHAPES, "").strip()
    return int(text) if text.isdigit() else default


def tuning_db() -> str:
    """The tuning database's path, or "" for none."""
    return os.environ.get(TUNING_DB, "").strip()


def cache_dir() -> Path | None:
    """The compile cache's folder, or None when VERSA_CACHE_DIR turns it off."""
    text = os.environ.get(CACHE_DIR)
    if text is not None:
        text = text.strip()
        return None if text.lower() in ("", *CACHE_OFF) else Path(text).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "versa"


def cache_size() -> int:
    """VERSA_CACHE_SIZE in bytes (`500M`, `2G`, `1073741824`); ValueError when unreadable."""
    return _size(CACHE_SIZE, DEFAULT_CACHE_SIZE)


def memory_cache_size(default: int) -> int:
    """VERSA_MEMORY_CACHE_SIZE in bytes, `default` when unset; ValueError when unreadable."""
    return _size(MEMORY_CACHE_SIZE, default)


def _size(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"{name}={text!r} is not a size (bytes, or with K, M, G, T: 500M, 2G)")
    return int(match[1]) << (10 * "kmgt".find(match[2].lower()) + 10 if match[2] else 0)


def log_level() -> str | None:
    """VERSA_LOG, lower case (None when unset); ValueError when it is not one of LOG_LEVELS."""
    text = os.environ.get(LOG, "").strip().lower()
    if not text:
        return None
    if text not in LOG_LEVELS:
        raise ValueError(f"{LOG}={os.environ[LOG]!r} is not one of {', '.join(LOG_LEVELS)}")
    return text
