"""Target descriptions: the hardware facts pipelines pick tile sizes and vector widths from.

Hardware differences are data here, never branches inside passes. `host` (and `x86-64` on an
x86 machine) is this machine's CPU, detected at run time from LLVM's view of it (machines
differ: Intel, AMD, AVX2, AVX-512), its caches from sysfs and its cores from the process's CPU
affinity. `x86-64-v3` (AVX2 + FMA + F16C) and `x86-64-v4` (AVX-512 F/BW/DQ/VL) are the psABI's
ISA levels: portable targets, as `-march=x86-64-v3` is, with the caches of a typical part, so
that code and tests for them are the same on every machine. The cross targets are fixed
descriptions of a typical part of their family (an Arm Neoverse core, an A100 or H100).

`VERSA_HOST_TARGET=x86-64-v3` makes `host` an ISA level this CPU can run (with this machine's
caches and cores): the whole tool chain then behaves as it would on a CPU of that level, which
is how an AVX-512 machine runs the test suite as an AVX2 one would.
"""

import os
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import llvmlite.binding as llvm

from versa import environment
from versa.gpu_limits import ConvTile, GpuLimits, MatmulTile, MmaTile, WgmmaTile

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
    gpu: GpuLimits | None = field(default=None, compare=False, hash=False)  # GPUs: limits and tiles
    # The activation layout the conv codegen is fastest with (versa-layout's default). CPUs: NHWC,
    # measured on x86-64 AVX-512: 3x3 s1 1.1-1.2x, 7x7 s2 stem 7x, 1x1 about even vs NCHW.
    conv_layout: str = "NHWC"

    @property
    def isa(self) -> str:
        """The x86-64 ISA level the features reach (`x86-64-v3`), or the CPU for other triples."""
        if not self.triple.startswith("x86_64"):
            return self.cpu or "generic"
        reached = [name for name, needs in X86_LEVELS.items() if needs <= _enabled(self)]
        return reached[-1] if reached else "x86-64"

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
        """Code for this target runs in this process (the JIT): this machine's triple, and every
        feature the target uses is one this CPU has (AVX2 code runs on an AVX-512 CPU; AVX-512
        code does not run on an AVX2 one)."""
        return _runs_on(self, host())

    @property
    def llvm_features(self) -> str:
        """The features as LLVM's target machine takes them (`+avx2,+fma`)."""
        return ",".join(f if f[0] in "+-" else f"+{f}" for f in self.features)

    @property
    def is_machine(self) -> bool:
        """This target is the machine's own CPU as LLVM detects it: a target machine for the
        host (the JIT's, llvmlite's) already generates its code, so no function needs to name
        a CPU or features."""
        return self.kind == "cpu" and self.cpu == llvm.get_host_cpu_name() and self == _detected()

    def has(self, feature: str) -> bool:
        """Whether the target's CPU has `feature` (LLVM's name: `avx512bf16`, `bf16`, `f16c`)."""
        return feature in _enabled(self)

    def describe(self) -> str:
        if self.kind == "gpu":
            return (
                f"{self.name:14} {self.triple:24} {self.chip}, warp {self.gpu.warp}, "
                f"{self.gpu.threads_per_block} threads/block, {self.gpu.smem >> 10} KiB smem"
            )
        width = f"{self.vector_bits}{'+ (scalable)' if self.scalable else ''}-bit vectors"
        level = f" ({self.isa})" if self.triple.startswith("x86_64") and self.cpu != self.isa else ""
        return (
            f"{self.name:14} {self.triple:24} {self.cpu or 'generic'}{level}, {width}, "
            f"{self.vector_registers} registers, {self.cores} cores"
        )


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


def default_threads() -> int:
    """Threads of parallel code where the options leave it open (0): VERSA_NUM_THREADS if set,
    else every core this process may use."""
    return environment.num_threads() or available_cores()


# The x86-64 psABI's micro-architecture levels, cumulative, in LLVM's feature names; LLVM knows
# each as a CPU of the same name. Each level's vector width and register file are those of its
# widest vector extension.
_V2 = frozenset("cx16 popcnt sahf sse3 sse4.1 sse4.2 ssse3".split())
_V3 = _V2 | frozenset("avx avx2 bmi bmi2 f16c fma lzcnt movbe xsave".split())
_V4 = _V3 | frozenset("avx512f avx512bw avx512cd avx512dq avx512vl".split())
X86_LEVELS = {"x86-64-v2": _V2, "x86-64-v3": _V3, "x86-64-v4": _V4}
NAMED_LEVELS = ("x86-64-v3", "x86-64-v4")  # the levels that are targets (v2 only names a CPU)
HOST_TARGET_VARIABLE = environment.HOST_TARGET


class TargetError(ValueError):
    """An unknown target name, or one this machine cannot stand for."""


def _enabled(target: Target) -> frozenset[str]:
    return frozenset(f.lstrip("+") for f in target.features if not f.startswith("-"))


def _runs_on(target: Target, cpu: Target) -> bool:
    """Code for `target` runs on `cpu`: same triple, and `cpu` has every feature it uses."""
    same = target.kind == cpu.kind == "cpu" and target.triple == cpu.triple
    return same and _enabled(target) <= _enabled(cpu)


def _vector_file(features: frozenset[str]) -> tuple[int, int]:
    """Vector bits and registers of the widest extension among `features`."""
    if "avx512f" in features:
        return 512, 32
    if "avx2" in features or "avx" in features:
        return 256, 16
    return 128, 16  # SSE2 / NEON baseline


@cache
def _detected() -> Target:
    """This machine's CPU as LLVM sees it, with its caches and cores."""
    enabled = frozenset(name for name, on in llvm.get_host_cpu_features().items() if on)
    triple = llvm.get_process_triple()
    return Target(
        "x86-64" if triple.startswith("x86_64") else "host",
        triple,
        llvm.get_host_cpu_name(),
        tuple(sorted(enabled)),
        *_vector_file(enabled),
        _cache_sizes(),
        available_cores(),
    )


def _x86_level(name: str) -> Target:
    """The ISA level `name` as a portable target: a typical part's caches (32 KiB L1d, 1 MiB L2,
    32 MiB L3: Zen 3/4, Skylake-SP), this process's cores."""
    features = X86_LEVELS[name]
    return Target(
        name, "x86_64-unknown-linux-gnu", name, tuple(sorted(features)), *_vector_file(features),
        cores=available_cores(),
    )  # fmt: skip


@cache
def host() -> Target:
    """The CPU code runs on here: the detected one, or the ISA level `VERSA_HOST_TARGET` names
    (which this CPU must be able to run), with this machine's caches and cores."""
    detected = _detected()
    level = environment.host_target()
    if not level or level == "host":
        return detected
    if level not in NAMED_LEVELS:
        raise TargetError(f"{HOST_TARGET_VARIABLE}={level}: not one of {', '.join(NAMED_LEVELS)}")
    pinned = _x86_level(level)
    if not _runs_on(pinned, detected):
        cpu = f"this CPU ({detected.isa})"
        raise TargetError(f"{HOST_TARGET_VARIABLE}={level}: {cpu} cannot run {level} code")
    return replace(pinned, name=detected.name, caches=detected.caches, cores=detected.cores)


_NEOVERSE = dict(caches=(64 << 10, 1 << 20, 32 << 20), cores=1, vector_registers=32)
# Features name what the CPU has and passes choose by (`Target.has`): both Neoverses have
# FEAT_DotProd (sdot/udot: versa-int8-kernels), V1 also FEAT_I8MM.
# GPUs: 128-bit global loads, registers per thread. Conv models ran faster in NCHW on an H200
# (4 of 5 example models; mobilenet's depthwise conv 3.6x) though versa-gpu-conv's 3x3 alone
# is 8% faster in NHWC: no layout change.
_SM = dict(kind="gpu", vector_bits=128, vector_registers=255, conv_layout="NCHW")
# The tiles A100 and H100 share: Hopper adds warpgroup MMAs and more shared memory and SMs.
_TILES = dict(
    matmul=MatmulTile(tile=128, k_step=8),
    mma=MmaTile(block_m=128, block_n=128, k_step=32, warps_m=2, warps_n=2, stages=3),
    conv=ConvTile(pixels=128, channels=64, k_step=8),
)


@cache  # plain data: `resolve` runs for every pass built with a target option
def _cross_targets() -> dict[str, Target]:
    return {
        "aarch64-neon": Target(
            "aarch64-neon", "aarch64-unknown-linux-gnu", "neoverse-n1",
            ("+neon", "+fp-armv8", "+dotprod"), 128,
            **_NEOVERSE,
        ),
        "aarch64-sve": Target(
            "aarch64-sve", "aarch64-unknown-linux-gnu", "neoverse-v1",
            ("+neon", "+sve", "+dotprod", "+i8mm"), 128,
            scalable=True, **_NEOVERSE,
        ),
        "nvptx-sm80": Target(
            "nvptx-sm80", "nvptx64-nvidia-cuda", "sm_80", ("+ptx78",), chip="sm_80",
            gpu=GpuLimits(warp=32, threads_per_block=256, smem=164 << 10, smem_per_block=163 << 10, sms=108,
                          wgmma=None, **_TILES), **_SM,
        ),
        "nvptx-sm90": Target(
            "nvptx-sm90", "nvptx64-nvidia-cuda", "sm_90a", ("+ptx80",), chip="sm_90",
            gpu=GpuLimits(warp=32, threads_per_block=256, smem=228 << 10, smem_per_block=227 << 10, sms=132,
                          wgmma=WgmmaTile(block_m=128, block_n=256, stages=4), **_TILES), **_SM,
        ),
    }  # fmt: skip


CPU_NAMES = ("host", "x86-64", "x86-64-v3", "x86-64-v4", "aarch64-neon", "aarch64-sve")
NAMES = (*CPU_NAMES, "nvptx-sm80", "nvptx-sm90")
_CROSS = NAMES[4:]


class UnknownTarget(TargetError, KeyError):
    """A name that is no target (a KeyError too, as look-ups of targets always raised)."""

    def __str__(self) -> str:
        return str(self.args[0])


def _by_name(name: str) -> Target:
    """The target called `name` (one of NAMES); raises TargetError (a KeyError too) otherwise.

    `host` and `x86-64` are this machine's CPU (`x86-64` only on an x86-64 machine)."""
    if name == "host" or (name == "x86-64" and host().name == "x86-64"):
        return host()
    if name in NAMED_LEVELS:
        return _x86_level(name)
    if name in _CROSS:
        return _cross_targets()[name]
    raise UnknownTarget(f"unknown target '{name}' (known: {', '.join(NAMES)})")


ALIASES = {"cpu": "host"}  # versa.compile's spelling of the host CPU


def resolve(name: "str | Target", kind: str | None = None) -> Target:
    """The target `name` stands for: the one place target names are looked up (tools, pipelines,
    pass options, `versa.compile`). `name` is a target's name (NAMES), "cpu" (the host), "cuda"
    (the NVIDIA target of this machine's GPU, nvptx-sm90 without one: compiling needs no GPU) or
    a GPU's chip ("sm_90"); a `Target` passes through. With `kind` ("cpu" or "gpu") a target of
    the other kind is refused. Raises TargetError (UnknownTarget for a name that is none)."""
    if isinstance(name, Target):
        target = name
    elif name == "cuda":
        target = _by_name(_cuda_target())
    else:
        chips = {t.chip: t for t in _cross_targets().values() if t.chip}
        target = chips[name] if name in chips else _by_name(ALIASES.get(name, name))
    if kind is not None and target.kind != kind:
        names = ", ".join(CPU_NAMES if kind == "cpu" else (n for n in NAMES if n not in CPU_NAMES))
        raise TargetError(f"target '{name}' is not a {kind.upper()} target (one of {names})")
    return target


def _cuda_target() -> str:
    """nvptx-sm80 where this machine's GPU is of compute capability 8.x (sm_80 code runs on all
    of them), else nvptx-sm90."""
    from versa.gpu import driver  # the CUDA bindings: only when "cuda" is asked for

    try:
        return "nvptx-sm80" if driver.compute_capability()[0] == 8 else "nvptx-sm90"
    except driver.GpuUnavailable:
        return "nvptx-sm90"


def gpu_chips() -> tuple[str, ...]:
    """The chips of the GPU targets ("sm_80", ...)."""
    return tuple(t.chip for t in _cross_targets().values() if t.chip)


def machine_summary() -> str:
    """One line on the machine code runs on here: the CPU's model (Linux), LLVM's name for it, its
    ISA level and the level `host` stands for, e.g. for a CI log."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    detected, pinned = _detected(), environment.host_target()
    line = f"CPU: {model} ({detected.cpu}, ISA level {detected.isa}, {detected.cores} cores available)"
    return line + (f"; host pinned to {pinned} by {HOST_TARGET_VARIABLE}" if pinned else "")


def listing() -> str:
    """One line per target, for `--list-targets`; the host line says which CPU and ISA level
    this machine is."""
    detected = host()
    lines = [_by_name(name).describe() for name in NAMES if name != "host"]
    runs = ", ".join(n for n in CPU_NAMES[2:] if _by_name(n).is_host)
    lines.append(f"host = {detected.name}: {detected.cpu}, ISA level {detected.isa}; runs {runs} code here")
    return "\n".join(lines)
