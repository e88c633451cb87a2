"""The core clock, measured: how many cycles a second this process's cores really run.

An FMA peak (lanes x pipes x 2 flops x clock) needs the clock the code runs at, and neither
/proc/cpuinfo's "cpu MHz" (a snapshot, often the nominal or the idle frequency, and on a VM
whatever the hypervisor reports) nor the TSC (constant-rate by design) is that. So we count:
a chain of dependent register-to-register integer adds retires exactly one add per cycle on
every x86-64 and AArch64 core (latency 1, and each add needs the previous result, so no
out-of-order machinery can overlap them; register operands rather than immediates, since
recent Intel cores fold add-immediate chains at rename). The chain is inline assembly in an
LLVM IR function that llvmlite (a Versa dependency) compiles in process, so no optimiser can
fold or reassociate it, and the loop's counter runs on other ports beside it. Time N x CHAIN
adds, and the clock is N x CHAIN / seconds.

With several threads, every thread runs the chain at once (ctypes releases the GIL), so the
cores are loaded as a multi-threaded row loads them (all-core turbo, not the one-core one).
The result is the best over rounds, as for the other machine limits: on a shared machine a
preempted round only ever looks slower. It is the scalar clock: a core that lowers its clock
for wide vector code (some Intel parts under AVX-512) runs FMAs slower than this, so a peak
built on it is an upper bound and a percentage of it a lower bound.
"""

import ctypes
import platform
import threading
import time
from functools import cache

CHAIN = 1000  # dependent adds per loop iteration: the loop's own instructions hide beside them

# One dependent add and the registers it clobbers, per architecture (`platform.machine()`).
_ADD = {
    "x86_64": ("addq %rcx, %rax", "~{rax},~{rcx},~{dirflag},~{fpsr},~{flags}"),
    "aarch64": ("add x9, x9, x10", "~{x9},~{x10}"),
}
_ADD["AMD64"], _ADD["arm64"] = _ADD["x86_64"], _ADD["aarch64"]


def _ir(add: str, clobbers: str) -> str:
    body = r"\0A".join([add] * CHAIN)
    return f"""
define void @chain(i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  call void asm sideeffect "{body}", "{clobbers}"()
  %next = add i64 %i, 1
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}}
"""


@cache
def _kernel():
    """`chain(n)`: n x CHAIN dependent adds, as a ctypes function (the engine kept alive with it)."""
    import llvmlite.binding as llvm

    add = _ADD.get(platform.machine())
    if add is None:
        raise RuntimeError(f"no add chain for {platform.machine()}")
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()  # the inline assembly
    module = llvm.parse_assembly(_ir(*add))
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=0)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.get_function_address("chain"))
    return fn, engine


def _run(fn, n: int) -> float:
    start = time.perf_counter()
    fn(n)
    return time.perf_counter() - start


def measure_ghz(threads: int = 1, repeat: int = 5, seconds: float = 0.02) -> float:
    """The clock in GHz: `threads` threads each run ~`seconds` of the add chain at once; the
    fastest thread of the best of `repeat` rounds. Raises where there is no kernel (another
    architecture) or llvmlite cannot build it."""
    fn, _ = _kernel()
    fn(100)  # page in, warm the core
    n = 100
    while (elapsed := _run(fn, n)) < 0.002:  # calibrate to ~`seconds` a call
        n *= 4
    n = max(1, int(n * seconds / elapsed))
    best = 0.0
    for _ in range(repeat):
        times = [float("inf")] * threads
        workers = [threading.Thread(target=_into, args=(times, i, fn, n)) for i in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        best = max(best, n * CHAIN / min(times) / 1e9)
    return best


def _into(times: list[float], i: int, fn, n: int) -> None:
    times[i] = _run(fn, n)


FMA_PIPES = 2  # full-width FMA units per core: Intel server cores since Skylake-SP, Zen 5


def fma_peak_gflops(cores: int, lanes: int, ghz: float) -> float:
    """f32 GFLOP/s if `cores` cores ran `lanes`-wide FMAs (2 flops) on both pipes each cycle at
    `ghz`. `lanes` is the code's ISA's (a Versa target's `lanes(32)`), not necessarily the
    machine's widest. Cores with one FMA pipe, or Zen 4, which splits a 512-bit FMA into two
    256-bit halves, never reach it: this is the formula's peak, an upper bound."""
    return cores * lanes * FMA_PIPES * 2 * ghz
