"""Measure one row on every system: compile, check against float64, then interleaved timing.

Order of work for a row, and why:
1. build the case and its float64 torch reference;
2. per system: prepare (compile/export; a failure is "n/a"), run once and check the output
   against the reference BEFORE any timing (a wrong answer is "WRONG" and never timed), then one
   warm-up call whose time sets the system's repetitions for this row;
3. R rounds in which every system still owed samples runs once, the starting system rotating
   from round to round, so a slow drift of the shared machine (another job, thermal state) hits
   every system alike instead of whichever ran last; the median of each system's samples wins.
A system whose call takes longer than the budget gets fewer samples (at least one), and a call
that takes longer than `long_s` on its checking run (Versa's scalar 2048³ matmul: ~30 s) counts
that run as its only sample, so one slow system cannot blow up the whole run.
"""

import copy
import gc
import math
import statistics
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from bench.case import Case
from bench.peers import Peer, _as_list
from bench.rows import Row


@dataclass
class Cell:
    status: str  # "ok", "n/a", "WRONG", "-" (the system has no version of this row)
    median_s: float | None = None
    samples: int = 0
    note: str = ""


@dataclass
class RowResult:
    name: str
    kind: str
    flops: float
    bytes: float
    cells: dict[str, Cell] = field(default_factory=dict)
    compile_s: dict[str, float | None] = field(default_factory=dict)  # per Versa system (one per target)
    seconds: float = 0.0  # wall time the row took, everything included
    peak_rss_bytes: int | None = None  # peak resident memory of the row's own process (--isolate)


@dataclass(frozen=True)
class Budget:
    repeat: int  # rounds R
    per_system_s: float  # timed seconds a system may spend on one row
    long_s: float  # a checking call this long is the only sample
    rewarm_below_s: float = 0.05  # calls shorter than this get untimed calls right before
    rewarm_s: float = 0.02  # for this long (at least one call)
    # Multi-threaded runs: a pause before each system's turn, so that the worker threads of the
    # system before it have stopped spinning (Intel OpenMP's blocktime is 200 ms, OpenBLAS's
    # ~0.1 s). Without it a 2-thread call shares its cores with the last system's spinners: a
    # 14 ms Versa matmul measured 27 ms right after numpy.matmul.
    settle_s: float = 0.0


def reason(err: BaseException) -> str:
    """One short line for the table's footnotes.

    A compiler-style `error:` line wins (IREE puts its diagnostic after a generic header).
    Otherwise the first line, plus the line that says most about the cause: an MLIR
    "Diagnostic message", else the last line (the exception of a nested traceback).
    """
    lines = [line.strip() for line in str(err).strip().splitlines() if line.strip()]
    text = next((x for x in lines if "error:" in x), None)
    if text is None and lines:
        detail = next((x for x in lines[1:] if x.startswith("Diagnostic message")), lines[-1])
        text = lines[0] if detail == lines[0] else f"{lines[0]} … {detail}"
    text = f"{type(err).__name__}: {text}" if text else type(err).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def reference(case: Case) -> list[np.ndarray]:
    """The torch program in float64 on the same (float32-valued) inputs and weights; integer
    inputs (token ids) as they are."""
    module = copy.deepcopy(case.module).double()
    args = [torch.from_numpy(a) for a in case.arrays[: case.torch_args]]
    args = [a.double() if a.is_floating_point() else a for a in args]
    return [np.array(o) for o in _as_list(module(*args))]


def check(outs: list[np.ndarray], refs: list[np.ndarray], reduction: int) -> str | None:
    """None if every output is close to its reference, else why not.

    The tolerance grows with the square root of the reduction length (rounding errors of a sum
    of K float32 terms grow like sqrt(K) for random data) and is relative to each element's size
    plus the output's RMS, so outputs near zero after cancellation do not fail on noise.
    """
    if len(outs) != len(refs):
        return f"{len(outs)} outputs, expected {len(refs)}"
    rtol = 2e-5 * math.sqrt(max(reduction, 1))
    for out, ref in zip(outs, refs, strict=True):
        out = np.asarray(out)
        if out.shape != ref.shape:
            return f"shape {list(out.shape)}, expected {list(ref.shape)}"
        if not np.isfinite(out).all():
            return "non-finite values"
        scale = np.abs(ref) + max(float(np.sqrt(np.mean(ref * ref))), 1e-30)
        err = float(np.max(np.abs(out.astype(np.float64) - ref) / scale))
        if err > rtol:
            return f"max relative error {err:.1e} > tolerance {rtol:.1e}"
    return None


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure_row(row: Row, peers: list[Peer], unusable: dict[str, str], budget: Budget, log) -> RowResult:
    started = time.perf_counter()
    try:
        case = row.build()
        refs = reference(case)
    except Exception as err:  # noqa: BLE001  (a broken row is a table entry, not the end of the run)
        result = RowResult(row.name, row.kind, 0.0, 0.0)
        result.cells = {p.name: Cell("n/a", note=f"row setup failed: {reason(err)}") for p in peers}
        log(summary(result))
        return result
    result = RowResult(row.name, row.kind, case.flops, case.bytes)
    runners, samples, owed, estimates = {}, {}, {}, {}
    for peer in peers:
        if peer.name in unusable:
            result.cells[peer.name] = Cell("n/a", note=unusable[peer.name])
            continue
        try:
            runner = peer.prepare(case)
        except NotImplementedError:
            result.cells[peer.name] = Cell("-")
            continue
        except Exception as err:  # noqa: BLE001  (a peer failing a row is a table entry)
            result.cells[peer.name] = Cell("n/a", note=reason(err))
            continue
        if peer.name.startswith("Versa"):
            result.compile_s[peer.name] = peer.compile_s
        try:
            start = time.perf_counter()
            outs = runner()
            first = time.perf_counter() - start
            bad = check(outs, refs, case.reduction)
            del outs
        except Exception as err:  # noqa: BLE001
            result.cells[peer.name] = Cell("n/a", note=reason(err))
            continue
        if bad:
            result.cells[peer.name] = Cell("WRONG", note=bad)
            continue
        lazy = peer.name in ("torch", "torch.compile")  # their first call initialises/compiles
        if first >= budget.long_s and not lazy:
            samples[peer.name], owed[peer.name], estimates[peer.name] = [first], 0, first
        else:
            estimate = estimates[peer.name] = _timed(runner)  # warm-up
            owed[peer.name] = max(1, min(budget.repeat, int(budget.per_system_s / max(estimate, 1e-9))))
            samples[peer.name] = []
        runners[peer.name] = runner
    del refs
    gc.collect()
    names = list(runners)
    for rnd in range(budget.repeat):
        order = names[rnd % len(names) :] + names[: rnd % len(names)] if names else []
        for name in order:
            if len(samples[name]) < owed[name]:
                if budget.settle_s and len(order) > 1:
                    time.sleep(budget.settle_s)
                if estimates[name] < budget.rewarm_below_s:
                    # Untimed calls for rewarm_s: they wake this system's thread pool, and the
                    # core from the idle of the pause (one call after a 0.25 s pause measured a
                    # 0.26 ms MLP at 1.26 ms; 5 ms of calls restored it).
                    until = time.perf_counter() + budget.rewarm_s
                    runners[name]()
                    while time.perf_counter() < until:
                        runners[name]()
                samples[name].append(_timed(runners[name]))
    for name in names:
        note = ""
        if len(samples[name]) < budget.repeat:
            note = f"n={len(samples[name])}"
        result.cells[name] = Cell("ok", statistics.median(samples[name]), len(samples[name]), note)
    runners.clear()
    del case
    torch._dynamo.reset()
    gc.collect()
    result.seconds = time.perf_counter() - started
    log(summary(result))
    return result


def summary(r: RowResult) -> str:
    """One progress line: Versa's time and every peer's ratio."""
    versa = r.cells.get("Versa")
    parts = []
    for name, cell in r.cells.items():
        if cell.status == "-":
            continue
        if cell.status != "ok":
            parts.append(f"{name} {cell.status}")
        elif name == "Versa" or versa is None or versa.status != "ok":
            parts.append(f"{name} {cell.median_s * 1e3:.3f} ms")
        else:
            parts.append(f"{name} {cell.median_s / versa.median_s:.2f}x")
    return f"{r.name}: " + " | ".join(parts) + f"  ({r.seconds:.1f} s)"
