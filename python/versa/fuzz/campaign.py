"""A fuzzing campaign: a deterministic stream of programs judged by parallel workers, then
every finding shrunk and saved as a regression case.

Program `i` of seed `s` depends on nothing else (not on timing or `--jobs`), so a finding is
reproduced by its seed and index, and `--programs N` always judges the same N programs. About a
quarter of the programs are mutants of the test suite's programs (`mutate.py`), the rest are
generated (`generate.py`); a quarter of either are then made dynamic (`dynamic.py`). A small
share (`quantized.SHARE`) are quantized chains (`quantized.py`) instead, drawn from a stream of
their own so that the other cases of a seed stay what they were.
"""

import hashlib
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .dynamic import variant
from .generate import generate
from .mutate import mutate
from .oracle import PIPELINES, Verdict
from .program import Program
from .quantized import SHARE as QUANTIZED_SHARE
from .quantized import generate as generate_quantized
from .reduce import reduce
from .worker import Worker

REPLAY_RUN_LINE = "// RUN: versa-fuzz --replay %s"
DYNAMIC_SHARE = 0.25  # of the cases, made dynamic: compiled once, called with several sizes


@dataclass(frozen=True)
class Case:
    index: int
    origin: str
    program: Program


@dataclass
class Finding:
    case: Case
    verdict: Verdict
    reduced: Program | None = None


@dataclass
class Report:
    programs: int = 0
    seconds: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)

    def summary(self) -> str:
        rate = self.programs / self.seconds if self.seconds else 0.0
        counts = ", ".join(f"{self.statuses[s]} {s}" for s in ("ok", "skipped", "invalid"))
        kinds = Counter(f.verdict.kind for f in self.findings)
        detail = f" ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})" if kinds else ""
        return (
            f"versa-fuzz: {self.programs} programs in {self.seconds:.1f} s ({rate:.2f} programs/s): "
            f"{counts}, {len(self.findings)} findings{detail}"
        )


class Source:
    """Case `index` of a seed: a quantized chain (share `quantized`), else a mutant of a corpus
    program (share `mutants`) or a new one, made dynamic (`dynamic.py`) for a share `dynamic`
    of the cases."""

    def __init__(
        self,
        seed: int,
        corpus: Sequence[Program] = (),
        mutants: float = 0.25,
        max_ops: int = 8,
        dynamic: float = DYNAMIC_SHARE,
        quantized: float = QUANTIZED_SHARE,
    ):
        self.seed, self.corpus, self.mutants, self.max_ops = seed, list(corpus), mutants, max_ops
        self.dynamic, self.quantized = dynamic, quantized

    def case(self, index: int) -> Case:
        own = random.Random(f"quantized {self.seed} {index}")
        if own.random() < self.quantized:
            return Case(index, "quantized", generate_quantized(own.randrange(1 << 31)))
        rng = random.Random(self.seed * 1_000_003 + index)
        case = self._static_case(index, rng)
        if rng.random() < self.dynamic:  # drawn last: the static programs stay those of the seed
            made = variant(case.program, rng.randrange(1 << 30))
            if made is not None:
                return Case(index, f"{case.origin}, made dynamic", made)
        return case

    def _static_case(self, index: int, rng: random.Random) -> Case:
        if self.corpus and rng.random() < self.mutants:
            parent = rng.randrange(len(self.corpus))
            mutant = mutate(self.corpus[parent], rng.randrange(1 << 30))
            if mutant is not None:
                return Case(index, f"mutant of corpus program {parent}", mutant)
        return Case(index, "generated", generate(rng.randrange(1 << 31), self.max_ops))


def run(
    source: Source,
    *,
    programs: int | None = None,
    seconds: float | None = None,
    jobs: int = 1,
    timeout: float = 60.0,
    pipelines: Sequence[str] = tuple(PIPELINES),
    progress: Callable[[Report, float], None] | None = None,
) -> Report:
    """Judge cases 0, 1, ... until `programs` are judged or `seconds` have passed."""
    report, lock, start = Report(), threading.Lock(), time.monotonic()
    next_index = iter(range(programs if programs is not None else 1 << 62))

    def done() -> float:
        by_time = (time.monotonic() - start) / seconds if seconds else 0.0
        by_count = report.programs / programs if programs else 0.0
        return max(by_time, by_count)

    def loop() -> None:
        worker = Worker(timeout)
        try:
            while done() < 1:
                with lock:  # one thread at a time: mutants are verified through the bindings
                    index = next(next_index, None)
                    case = source.case(index) if index is not None else None
                if case is None:
                    return
                verdicts = worker.judge(case.program.text(), pipelines)
                with lock:
                    record(report, case, verdicts)
                    report.seconds = time.monotonic() - start
                    if progress:
                        progress(report, min(done(), 1.0))
        finally:
            worker.stop()

    with ThreadPoolExecutor(jobs) as pool:
        for future in [pool.submit(loop) for _ in range(jobs)]:
            future.result()
    report.seconds = time.monotonic() - start
    report.findings.sort(key=lambda f: (f.case.index, f.verdict.kind, f.verdict.pipeline))
    return report


def record(report: Report, case: Case, verdicts: list[Verdict]) -> None:
    report.programs += 1
    for verdict in verdicts:
        if verdict.status == "finding":
            report.findings.append(Finding(case, verdict))
        else:
            report.statuses[verdict.status] += 1


def pipelines_for(verdict: Verdict) -> list[str]:
    """The pipelines that reproduce `verdict` (-O0 too for a disagreement with it)."""
    if verdict.pipeline not in PIPELINES:
        return []
    return ["O0", verdict.pipeline] if verdict.kind == "disagreement" else [verdict.pipeline]


def reproduces(worker: Worker, verdict: Verdict) -> Callable[[Program], bool]:
    """The reducer's oracle: the program still gives a finding of the same kind and pipeline."""

    def fails(program: Program) -> bool:
        found = worker.judge(program.text(), pipelines_for(verdict))
        return any(v.signature == verdict.signature for v in found)

    return fails


def reduce_findings(
    findings: Sequence[Finding], jobs: int = 1, timeout: float = 60.0, budget: int = 150
) -> None:
    """Shrink each finding's program (in parallel, one worker per job)."""

    def shrink(finding: Finding) -> None:
        worker = Worker(timeout)
        try:
            finding.reduced = reduce(finding.case.program, reproduces(worker, finding.verdict), budget)
        finally:
            worker.stop()

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(shrink, findings))


def unique(findings: Sequence[Finding]) -> list[Finding]:
    """One finding per (kind, pipeline, program): duplicates shrink to the same program."""
    seen, kept = set(), []
    for f in findings:
        key = (*f.verdict.signature, (f.reduced or f.case.program).text())
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def regression_text(finding: Finding, seed: int) -> str:
    """A lit test: replaying it judges the (reduced) program with every oracle again."""
    v, case = finding.verdict, finding.case
    message = v.message.strip().splitlines()[0] if v.message.strip() else ""
    header = [
        REPLAY_RUN_LINE,
        f"// Found by versa-fuzz --seed {seed} (program {case.index}, {case.origin}):",
        f"// {v.kind} in {v.pipeline or 'the reference'}: {message[:300]}",
    ]
    return "\n".join(header) + "\n" + (finding.reduced or case.program).text()


def save(findings: Sequence[Finding], directory: Path, seed: int) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for finding in findings:
        text = regression_text(finding, seed)
        program = (finding.reduced or finding.case.program).text()
        digest = hashlib.sha1(program.encode()).hexdigest()[:8]
        v = finding.verdict
        path = directory / f"{v.kind}-{v.pipeline or 'reference'}-{digest}.mlir"
        path.write_text(text)
        paths.append(path)
    return paths
