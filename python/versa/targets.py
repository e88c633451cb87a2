"""Target descriptions: the hardware facts pipelines pick tile sizes and vector widths from.

Hardware differences are data here, never branches inside passes. The host description is
detected at run time from LLVM's view of the CPU (machines differ: Intel, AMD, AVX2, AVX-512),
the caches from sysfs and the cores from the process's CPU affinity.
"""

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import llvmlite.binding as llvm

_DEFAULT_CACHES = (32 << 10, 1 << 20, 32 << 20)  # L1d, L2, L3 when sysfs says nothing


@dataclass(frozen=True)
class Target:
    name: str
    triple: str
    cpu: str
    features: tuple[str, ...]
    vector_bits: int
    vector_registers: int = 16
    caches: tuple[int, int, int] = _DEFAULT_CACHES  # bytes: L1d, L2 (per core), L3 (shared)
    cores: int = 1

    def lanes(self, element_bits: int = 32) -> int:
        """Vector lanes for an element type of `element_bits`."""
        return max(1, self.vector_bits // element_bits)

    @property
    def l1(self) -> int:
        return self.caches[0]

    @property
    def l2(self) -> int:
        return self.caches[1]


def _cache_sizes() -> tuple[int, int, int]:
    """L1 data, L2 and L3 sizes of cpu0 from sysfs (Linux); defaults elsewhere."""
    sizes = dict(zip((1, 2, 3), _DEFAULT_CACHES, strict=True))
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            text = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        if kind == "Instruction" or level not in sizes:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
        sizes[level] = int(text.rstrip("KM")) * scale
    return sizes[1], sizes[2], sizes[3]


def available_cores() -> int:
    """Cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


@cache
def host() -> Target:
    features = llvm.get_host_cpu_features()
    enabled = tuple(sorted(name for name, on in features.items() if on))
    if "avx512f" in enabled:
        bits, registers = 512, 32
    elif "avx2" in enabled or "avx" in enabled:
        bits, registers = 256, 16
    else:
        bits, registers = 128, 16  # SSE2 / NEON baseline
    return Target(
        "x86-64" if llvm.get_process_triple().startswith("x86_64") else "host",
        llvm.get_process_triple(),
        llvm.get_host_cpu_name(),
        enabled,
        bits,
        registers,
        _cache_sizes(),
        available_cores(),
    )


NAMES = ("host", "x86-64")  # x86-64 means this machine's x86-64 CPU until cross targets land


def get(name: str) -> Target:
    """The target called `name` (one of NAMES); raises KeyError otherwise."""
    if name not in NAMES:
        raise KeyError(name)
    return host()
