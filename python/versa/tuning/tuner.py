"""The tuner: for each distinct kernel of a program, measure points of its strategy's space and
record the fastest in the tuning database.

Search: coordinate descent from the analytic point. The knobs are few (5-7) and mostly
separable (the register tile sets the kernel's arithmetic intensity, the cache tiles its
traffic, the split its balance), and the analytic point is already good, so the wins are near
it: each step takes one knob, compiles every valid value of it with the others held (one
batch, compiled on all workers at once), times them against the incumbent, and moves when one
is faster by more than the noise (2%); passes over the knobs repeat until one changes nothing
or the kernel's share of the budget is spent. Random or evolutionary search (TVM's
MetaSchedule) needs hundreds of measurements to beat that on a space this small; minutes, not
hours, is the budget here. Shares: the budget is split by each kernel's size times its uses
(time not spent rolls over), largest first.

Measurement: a candidate whose code is that of one compiled before (a digest of its lowered
module: the tiles of a matmul whose B is pre-packed are moot) is not measured again. Every
candidate's outputs are checked against the default point's first (a point that computes
something else is dropped, never timed); then interleaved rounds (each round runs every
candidate once, the starting one rotating), each timing enough back-to-back calls for ~10 ms,
medians; when the two best are within 5%, more rounds for those two decide. The final point
meets the default head to head and is recorded only if it wins there by the same 2%: a tuned
compile is never slower than the untuned one by what this run could measure.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from versa import log
from versa.options import CompileOptions
from versa.passes.cpu.strategies import strategy_at
from versa.passes.cpu.strategies.space import InvalidPoint, as_json
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint
from versa.tuning.extract import TuneKernel, codegen_threads, distinct_kernels

ROUNDS = 5
CLOSE = 0.05  # re-measure when the best two are this close
GAIN = 0.02  # a move needs this much
SLICE_S = 0.01  # one timing: back-to-back calls for about this long
_log = log.get("tuning")


@dataclass
class KernelReport:
    kernel: TuneKernel
    default_s: float = 0.0
    best_s: float = 0.0
    point: dict = field(default_factory=dict)
    measured: int = 0
    failed: list[str] = field(default_factory=list)
    cached: bool = False

    @property
    def speedup(self) -> float:
        return self.default_s / self.best_s if self.best_s else 1.0


class _Candidates:
    """The compiled candidates of one kernel, spread over the pool's workers."""

    def __init__(self, pool, kernel: TuneKernel):
        self.pool, self.kernel = pool, kernel
        self.where: dict[str, int] = {}
        self.reference: list[np.ndarray] | None = None
        self.codes: set[str] = set()  # digests of the code compiled so far: each measured once

    def compile(self, points: list[dict], names: list[str]) -> tuple[list[str], list[str]]:
        k = self.kernel
        jobs = []
        for i, (name, point) in enumerate(zip(names, points, strict=True)):
            worker = (len(self.where) + i) % self.pool.size
            args = (name, k.text, k.signature.key, k.strategy, {n: as_json(v) for n, v in point.items()})
            jobs.append((worker, "compile", args))
        results = self.pool.map(jobs)
        ok, failed = [], []
        for (worker, _, args), (status, value) in zip(jobs, results, strict=True):
            if status != "ok":
                failed.append(f"{args[4]}: {value}")
            elif value in self.codes:  # the code of a point measured before: it won or lost then
                self.pool.call(worker, "drop", [args[0]])
            else:
                self.codes.add(value)
                self.where[args[0]] = worker
                ok.append(args[0])
        checked = []
        for name in ok:
            outputs = self.pool.call(self.where[name], "outputs", name)
            if self.reference is None:
                self.reference = outputs
            if _agrees(outputs, self.reference):
                checked.append(name)
            else:
                failed.append(f"{name}: outputs differ from the default point's")
        return checked, failed

    def times(self, names: list[str], rounds: int) -> dict[str, float]:
        calls = {}
        for name in names:
            once = self.pool.call(self.where[name], "time", name, 1)
            calls[name] = max(1, int(SLICE_S / max(once, 1e-7)))
        samples: dict[str, list[float]] = {n: [] for n in names}
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                samples[name].append(self.pool.call(self.where[name], "time", name, calls[name]))
        return {n: float(np.median(s)) for n, s in samples.items()}

    def drop(self, keep: tuple[str, ...]) -> None:
        for name, worker in list(self.where.items()):
            if name not in keep:
                self.pool.call(worker, "drop", [name])
                del self.where[name]


def _agrees(outputs: list[np.ndarray], reference: list[np.ndarray]) -> bool:
    for out, ref in zip(outputs, reference, strict=True):
        if out.shape != ref.shape:
            return False
        if np.issubdtype(ref.dtype, np.floating):
            scale = float(np.max(np.abs(ref))) if ref.size else 0.0
            if not np.allclose(out, ref, rtol=1e-4, atol=1e-4 * scale + 1e-6):
                return False
        elif not np.array_equal(out, ref):
            return False
    return True


def tune_kernel(pool, kernel: TuneKernel, options: CompileOptions, deadline: float) -> KernelReport:
    report = KernelReport(kernel)
    space, strategy = kernel.space, kernel.strategy_object
    candidates = _Candidates(pool, kernel)
    current = space.default()
    ok, failed = candidates.compile([current], ["c0"])
    if not ok:
        report.failed = failed
        return report
    best_name = "c0"
    best_s = report.default_s = candidates.times(["c0"], ROUNDS)["c0"]
    seen = {strategy_at(strategy, current, options.target)}
    count, changed = 1, True
    while changed and time.monotonic() < deadline:
        changed = False
        for knob in space.knobs:
            if time.monotonic() >= deadline:
                break
            points = []
            for value in knob.values:
                point = {**current, knob.name: value}
                try:
                    built = strategy_at(strategy, point, options.target)
                except InvalidPoint:
                    continue
                if built not in seen:
                    seen.add(built)
                    points.append(point)
            if not points:
                continue
            names = [f"c{count + i}" for i in range(len(points))]
            count += len(points)
            ok, failed = candidates.compile(points, names)
            report.failed += failed
            report.measured += len(ok)
            if not ok:
                continue
            times = candidates.times([best_name, *ok], ROUNDS)
            ranked = sorted(ok, key=times.get)
            winner = ranked[0]
            if times[winner] < times[best_name] * (1 + CLOSE):  # close: more rounds decide
                times.update(candidates.times([best_name, winner], 2 * ROUNDS))
            if times[winner] < times[best_name] * (1 - GAIN):
                best_name, best_s, changed = winner, times[winner], True
                current = points[names.index(winner)]
            candidates.drop(keep=(best_name, "c0"))
    if best_name != "c0":  # the final word: the winner against the default, head to head
        times = candidates.times(["c0", best_name], 2 * ROUNDS)
        report.default_s, best_s = times["c0"], times[best_name]
        if best_s >= report.default_s * (1 - GAIN):
            best_s, current = report.default_s, space.default()
    candidates.drop(keep=())
    report.best_s, report.point = best_s, {n: as_json(v) for n, v in current.items()}
    return report


def tune(
    text: str,
    options: CompileOptions,
    database: str,
    budget_s: float,
    pool=None,
    jobs: int = 0,
    progress: bool = True,
) -> list[KernelReport]:
    """Tune the versa program `text` for `options` (target, threads) within `budget_s`
    seconds, merging the results into `database`. Kernels the database already holds for
    this target, thread count and code are not measured again."""
    from versa.tuning.workers import LocalPool  # noqa: PLC0415 (spawns processes)

    db = TuningDb.load(database)
    kernels = sorted(distinct_kernels(text, options), key=lambda k: -k.elements * k.uses)
    reports, todo = [], []
    for kernel in kernels:
        entry = db.lookup(options.target, codegen_threads(options), kernel.signature.key)
        if entry is not None:
            reports.append(KernelReport(kernel, entry.default_s, entry.best_s, entry.point, cached=True))
        else:
            todo.append(kernel)
    _log.info("%d kernel(s) to tune, %d already in %s", len(todo), len(reports), database)
    if not todo:
        return reports
    owned = pool is None
    pool = pool or LocalPool(options.lowering(), jobs or options.target.cores)
    start, weights = time.monotonic(), [k.elements * k.uses for k in todo]
    bar = _progress(len(todo), progress)
    try:
        for i, kernel in enumerate(todo):
            left = budget_s - (time.monotonic() - start)
            share = left * weights[i] / sum(weights[i:])
            report = tune_kernel(pool, kernel, options, time.monotonic() + max(share, 0.0))
            reports.append(report)
            if report.best_s:
                db.save([_entry(report, options)])
            bar.set_postfix_str(f"{kernel.signature.summary[:40]}: {report.speedup:.2f}x")
            _log.info(
                "kernel %d/%d %s: %d points measured, %.2fx at %s",
                *(i + 1, len(todo), kernel.signature.summary, report.measured + 1, report.speedup),
                report.point or "(failed)",
            )
            bar.update(1)
    finally:
        bar.close()
        if owned:
            pool.close()
    return reports


def _entry(report: KernelReport, options: CompileOptions) -> Entry:
    k = report.kernel
    return Entry(
        fingerprint(options.target),
        codegen_threads(options),
        k.signature.key,
        code_digest(),
        k.signature.summary,
        k.strategy,
        report.point,
        report.default_s,
        report.best_s,
        report.measured + 1,
    )


def _progress(total: int, shown: bool):
    from tqdm import tqdm  # noqa: PLC0415

    return tqdm(total=total, unit="kernel", desc="versa-tune", disable=not shown, file=sys.stderr)
