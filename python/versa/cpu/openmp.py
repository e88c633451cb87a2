"""The OpenMP runtime that multi-threaded code runs on, found at run time.

`convert-scf-to-openmp` + `convert-openmp-to-llvm` emit calls to the `__kmpc_*` entry points
of LLVM's/Intel's OpenMP runtime (GNU libgomp, also the one inside torch, lacks them). Versa
depends on the `intel-openmp` wheel, which installs `libiomp5.so` into `<prefix>/lib`; LLVM's
`libomp.so` (Debian `libomp5`) works too. The library is handed to the ExecutionEngine as a
shared library; without one, pipelines fall back to one thread (serial code).

This is the JIT's allowlist of shared libraries (SECURITY.md): the ExecutionEngine loads only
`shared_libraries()`, a file of one of ALLOWED_NAMES in one of ALLOWED_DIRS, never a path taken
from the IR, the environment (LD_LIBRARY_PATH) or the working directory.
"""

import ctypes
import os
import sys
from functools import cache
from pathlib import Path

from versa import environment

ALLOWED_NAMES = ("libiomp5.so", "libomp.so", "libomp.so.5")
ALLOWED_DIRS = (Path(sys.prefix) / "lib", Path(sys.base_prefix) / "lib", Path("/usr/lib/x86_64-linux-gnu"))


# How long a worker spins after a parallel region before it sleeps (the runtime reads it when its
# first region starts; a user's own KMP_BLOCKTIME wins). The default, 200 ms, keeps our workers
# spinning through whatever the caller does next: a small conv net at batch 4 ran 1.67 ms alone
# but 8 ms when each call alternated with a torch eager call (torch's libgomp and our workers
# fighting for 2 cores); at 200 µs, 2.4 ms alternated. Shorter than ~1 ms loses inside a call,
# where serial stretches between parallel regions outlast it: bench rows at 200 µs against 1 ms,
# ResNet block batch 1 1.99 vs 1.04 ms, Transformer layer 4.30 vs 2.13 ms (waking a sleeping
# worker costs ~55 µs a region: a 64K-element add, 6.8 µs on one thread, 64.6 on two, at 0).
BLOCKTIME = "1ms"

# With VERSA_FOLLOW_LOAD, team sizes follow the machine's load (libiomp's `load_balance` dynamic
# mode: each parallel region gets the cores no other runnable thread holds, counted from /proc
# once a second). With a fixed team, regions are split statically and end at a barrier, so on
# cores other jobs share every region waits for the worker that has no core: MobileNetV2 batch 1
# at 2 threads beside two busy processes ran 111 ms a call against 22.5 ms in this mode;
# ResNet-50 beside one busy process 155 against 137 ms. But on a quiet machine the mode counts
# our own spinning workers as load and often runs a region on one thread: ResNet-50 78 ms
# against 58 with a fixed team, a 128x768x3072 linear layer 11.1 against 4.9 ms (2 threads,
# Emerald Rapids). So the default is the fixed team, as every peer runtime's, and a shared
# machine opts in. Set through `kmp_set_defaults`, which only libiomp reads: the OMP_DYNAMIC
# environment variable would also change torch's libgomp. A user's OMP_DYNAMIC or
# KMP_DYNAMIC_MODE wins.
DYNAMIC_DEFAULTS = (b"OMP_DYNAMIC=true", b"KMP_DYNAMIC_MODE=load_balance")


@cache
def runtime_library() -> str | None:
    """Path of an OpenMP runtime with the `__kmpc_*` entry points, or None."""
    os.environ.setdefault("KMP_BLOCKTIME", BLOCKTIME)
    for folder in ALLOWED_DIRS:
        for name in ALLOWED_NAMES:
            path = folder / name
            if path.is_file() and _has_kmpc(path):
                _follow_load(_library(str(path)))
                return str(path)
    return None


def _follow_load(library: ctypes.CDLL) -> None:
    """With VERSA_FOLLOW_LOAD, let team sizes shrink while other jobs hold cores
    (DYNAMIC_DEFAULTS), before the runtime's first region reads its settings."""
    if not environment.follow_load() or "OMP_DYNAMIC" in os.environ or "KMP_DYNAMIC_MODE" in os.environ:
        return
    if hasattr(library, "kmp_set_defaults"):
        for setting in DYNAMIC_DEFAULTS:
            library.kmp_set_defaults(setting)


def shared_libraries() -> list[str]:
    """Every shared library the JIT may hand to the ExecutionEngine (at most the runtime)."""
    path = runtime_library()
    return [path] if path else []


def is_allowed(path: str) -> bool:
    """Whether `path` is a library of the allowlist (its folder compared by real location)."""
    folder = Path(path).parent.resolve()
    return Path(path).name in ALLOWED_NAMES and any(folder == d.resolve() for d in ALLOWED_DIRS)


@cache
def _library(path: str) -> ctypes.CDLL:
    return ctypes.CDLL(path)  # RTLD_LOCAL: visible to lookups here, not to the process


def _has_kmpc(path: Path) -> bool:
    try:
        return hasattr(_library(str(path)), "__kmpc_fork_call")
    except OSError:
        return False


def provides(name: str) -> bool:
    """Whether the runtime library defines `name` (for the JIT's symbol check)."""
    path = runtime_library()
    return path is not None and hasattr(_library(path), name)
