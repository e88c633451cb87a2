"""Target descriptions: the hardware facts pipelines pick tile sizes and vector widths from.

Hardware differences are data here, never branches inside passes. The host description is
detected at run time from LLVM's view of the CPU (machines differ: Intel, AMD, AVX2, AVX-512).
"""

from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llvm


@dataclass(frozen=True)
class Target:
    name: str
    triple: str
    cpu: str
    features: tuple[str, ...]
    vector_bits: int

    def lanes(self, element_bits: int = 32) -> int:
        """Vector lanes for an element type of `element_bits`."""
        return max(1, self.vector_bits // element_bits)


@cache
def host() -> Target:
    features = llvm.get_host_cpu_features()
    enabled = tuple(sorted(name for name, on in features.items() if on))
    if "avx512f" in enabled:
        bits = 512
    elif "avx2" in enabled or "avx" in enabled:
        bits = 256
    else:
        bits = 128  # SSE2 / NEON baseline
    return Target(
        "x86-64" if llvm.get_process_triple().startswith("x86_64") else "host",
        llvm.get_process_triple(),
        llvm.get_host_cpu_name(),
        enabled,
        bits,
    )


NAMES = ("host", "x86-64")  # x86-64 means this machine's x86-64 CPU until cross targets land


def get(name: str) -> Target:
    """The target called `name` (one of NAMES); raises KeyError otherwise."""
    if name not in NAMES:
        raise KeyError(name)
    return host()
