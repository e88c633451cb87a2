"""The machine's limits, measured in the same process and with the same thread count as the rows.

A row's GB/s or GFLOP/s means little alone; as a percentage of what this machine reaches it says
how much is left to win. Memory-bound rows are rated against a STREAM-like triad
(a = b + s*c on arrays far larger than the caches: 3 arrays of bytes move per pass), compute-bound
rows against the best library GEMM (torch.mm and NumPy's BLAS at 2048³ f32) and against the
f32 FMA peak (cores x lanes x 2 FMA pipes x 2 flops x the clock measured by versa/clock.py): a
library GEMM is itself short of the peak (and Versa can beat it), so only the peak says how much
any system could still win. All are best-of-N: the machine is shared, and the best run is the
closest to what the hardware can do.
"""

import os
import platform
import time
from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Limits:
    cpu: str
    cores: int  # logical CPUs this process may run on
    threads: int
    triad_gbs: float
    gemm_gflops: float
    gemm_source: str
    isa: str
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)  # os.getloadavg() at the start
    gemm_scaling: float | None = None  # torch.mm GFLOP/s with `threads` over 1 thread
    clock_ghz: float | None = None  # measured (versa/clock.py); None where it could not be
    clock_note: str = ""  # why there is no clock

    def fma_peak_gflops(self, lanes: int) -> float | None:
        """The f32 FMA peak of `lanes`-wide code on the cores used (versa.clock's formula);
        None without a clock."""
        from versa import clock

        if self.clock_ghz is None:
            return None
        return clock.fma_peak_gflops(min(self.threads, self.cores), lanes, self.clock_ghz)

    def scaling_warning(self) -> str | None:
        """Why multi-threaded numbers may be unreliable, if the N-thread GEMM did not scale."""
        if self.gemm_scaling is None or self.gemm_scaling >= 0.65 * self.threads:
            return None
        return (
            f"torch.mm with {self.threads} threads ran only {self.gemm_scaling:.2f}x its 1-thread "
            "speed: the cores are not all really available (shared or oversubscribed machine), so "
            "multi-threaded times are unreliable here; `--threads 1` compares the systems fairly."
        )


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _isa() -> str:
    """The widest x86 vector extension (what the codegen could target), or the machine name."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        flags = []
    for ext in ("avx512f", "avx2", "sse4_2"):
        if ext in flags:
            return ext.upper()
    return platform.machine()


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _best(fn, repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def triad_gbs(elements: int = 1 << 25, repeat: int = 10) -> float:
    """a = b + s*c with torch's parallel kernels: 3 x 128 MiB by default (32 MiB L3 here)."""
    a, b, c = torch.empty(elements), torch.rand(elements), torch.rand(elements)
    seconds = _best(lambda: torch.add(b, c, alpha=3.0, out=a), repeat)
    return 3 * 4 * elements / seconds / 1e9


def gemm_rates(n: int = 2048, repeat: int = 5, numpy_too: bool = True) -> dict[str, float]:
    """GFLOP/s of torch.mm and (optionally) numpy.matmul on n³ f32, best of `repeat`."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    flops = 2.0 * n**3
    rates = {"torch.mm": flops / _best(lambda: torch.mm(ta, tb), repeat) / 1e9}
    if numpy_too:
        rates["numpy.matmul"] = flops / _best(lambda: a @ b, repeat) / 1e9
    return rates


def _clock(threads: int, quick: bool) -> tuple[float | None, str]:
    from versa import clock

    try:
        return clock.measure_ghz(threads, repeat=3 if quick else 7), ""
    except Exception as err:  # noqa: BLE001  (no clock: the report leaves the peak out and says why)
        return None, f"{type(err).__name__}: {err}"


def measure(threads: int, quick: bool) -> Limits:
    load = os.getloadavg()
    clock_ghz, clock_note = _clock(threads, quick)
    torch.set_num_threads(threads)
    triad = triad_gbs(repeat=4 if quick else 10)
    rates = gemm_rates(repeat=2 if quick else 5)
    source = max(rates, key=rates.get)
    scaling = None
    if threads > 1:  # do N threads really run at once? (not on an oversubscribed VM)
        torch.set_num_threads(1)
        scaling = rates["torch.mm"] / gemm_rates(repeat=2, numpy_too=False)["torch.mm"]
        torch.set_num_threads(threads)
    return Limits(
        cpu_name(), available_cores(), threads, triad, rates[source], source, _isa(), load, scaling,
        clock_ghz, clock_note,
    )  # fmt: skip
