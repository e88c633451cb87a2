"""Target descriptions: the hardware facts pipelines pick tile sizes and vector widths from.

Hardware differences are data here, never branches inside passes. `x86-64` is this machine's
CPU, detected at run time from LLVM's view of it (machines differ: Intel, AMD, AVX2, AVX-512),
its caches from sysfs and its cores from the process's CPU affinity. The cross targets are
fixed descriptions of a typical part of their family (an Arm Neoverse core, an A100 or H100).
"""

import os
from dataclasses import dataclass, field
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
    kind: str = "cpu"  # "cpu" or "gpu": which pipeline lowers for it
    scalable: bool = False  # vector_bits is the minimum of a scalable (SVE) register
    chip: str = ""  # GPUs: the compute capability (sm_80), for ptxas and the driver
    gpu: dict = field(default_factory=dict, compare=False, hash=False)  # GPUs: warp, block, smem
    # The activation layout the conv codegen is fastest with (versa-layout's default). CPUs: NHWC,
    # measured on x86-64 AVX-512: 3x3 s1 1.1-1.2x, 7x7 s2 stem 7x, 1x1 about even vs NCHW.
    conv_layout: str = "NHWC"

    def lanes(self, element_bits: int = 32) -> int:
        """Vector lanes for an element type of `element_bits` (the minimum when scalable)."""
        return max(1, self.vector_bits // element_bits)

    @property
    def l1(self) -> int:
        return self.caches[0]

    @property
    def l2(self) -> int:
        return self.caches[1]

    @property
    def is_host(self) -> bool:
        """Code for this target runs in this process (the JIT)."""
        return self.kind == "cpu" and self.triple == llvm.get_process_triple()

    @property
    def llvm_features(self) -> str:
        """The features as LLVM's target machine takes them (`+avx2,+fma`)."""
        return ",".join(f if f[0] in "+-" else f"+{f}" for f in self.features)

    def describe(self) -> str:
        if self.kind == "gpu":
            return (
                f"{self.name:14} {self.triple:24} {self.chip}, warp {self.gpu['warp']}, "
                f"{self.gpu['threads_per_block']} threads/block, {self.gpu['smem'] >> 10} KiB smem"
            )
        width = f"{self.vector_bits}{'+ (scalable)' if self.scalable else ''}-bit vectors"
        return f"{self.name:14} {self.triple:24} {self.cpu or 'generic'}, {width}, {self.cores} cores"


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
    triple = llvm.get_process_triple()
    return Target(
        "x86-64" if triple.startswith("x86_64") else "host",
        triple,
        llvm.get_host_cpu_name(),
        enabled,
        bits,
        registers,
        _cache_sizes(),
        available_cores(),
    )


_NEOVERSE = dict(caches=(64 << 10, 1 << 20, 32 << 20), cores=1, vector_registers=32)
# GPUs: 128-bit global loads, registers per thread. Conv models ran faster in NCHW on an H200
# (4 of 5 example models; mobilenet's depthwise conv 3.6x) though versa-gpu-conv's 3x3 alone
# is 8% faster in NHWC: no layout change.
_SM = dict(kind="gpu", vector_bits=128, vector_registers=255, conv_layout="NCHW")


def _cross_targets() -> dict[str, Target]:
    return {
        "aarch64-neon": Target(
            "aarch64-neon", "aarch64-unknown-linux-gnu", "neoverse-n1", ("+neon", "+fp-armv8"), 128,
            **_NEOVERSE,
        ),
        "aarch64-sve": Target(
            "aarch64-sve", "aarch64-unknown-linux-gnu", "neoverse-v1", ("+neon", "+sve"), 128,
            scalable=True, **_NEOVERSE,
        ),
        # conv_tile (versa-gpu-conv): output pixels x output channels per block, taps per stage.
        # 64 channels: convs have 64 * 2^k, so no block is half idle. On an H200 (N=32 ResNet
        # shapes) it came within 10% of the best of five tilings on each, at 16-20 TFLOP/s.
        "nvptx-sm80": Target(
            "nvptx-sm80", "nvptx64-nvidia-cuda", "sm_80", ("+ptx78",), chip="sm_80",
            gpu=dict(warp=32, threads_per_block=256, smem=164 << 10, smem_per_block=163 << 10, sms=108,
                     matmul_tile=(128, 8), mma_tile=(128, 128, 32, 2, 2, 3), conv_tile=(128, 64, 8)), **_SM,
        ),
        "nvptx-sm90": Target(
            "nvptx-sm90", "nvptx64-nvidia-cuda", "sm_90a", ("+ptx80",), chip="sm_90",
            gpu=dict(warp=32, threads_per_block=256, smem=228 << 10, smem_per_block=227 << 10, sms=132,
                     matmul_tile=(128, 8), mma_tile=(128, 128, 32, 2, 2, 3), wgmma_tile=(128, 256, 4),
                     conv_tile=(128, 64, 8)), **_SM,
        ),
    }  # fmt: skip


NAMES = ("host", "x86-64", "aarch64-neon", "aarch64-sve", "nvptx-sm80", "nvptx-sm90")


def get(name: str) -> Target:
    """The target called `name` (one of NAMES); raises KeyError otherwise.

    `host` and `x86-64` are this machine's CPU (`x86-64` only on an x86-64 machine)."""
    if name == "host" or (name == "x86-64" and host().name == "x86-64"):
        return host()
    return _cross_targets()[name]


def listing() -> str:
    """One line per target, for `--list-targets`."""
    return "\n".join(get(name).describe() for name in NAMES if name != "host")
