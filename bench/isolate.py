"""Measure one row in a fresh process of its own (`--isolate`, the default of `--real-models`).

Why: in one process every earlier row's compiled code, the peers' sessions and their tensors stay
resident (torch's and the JITs' allocators rarely give memory back), and a run of the real models
once reached 24 GB and was OOM-killed on the Llama-style decoder. A spawned child builds the row,
sets up the peers itself, measures the row with the same `measure_row`, sends the `RowResult`
back through a pipe and exits, so the operating system takes all of its memory back. A child that
dies (OOM-killed, segfault) becomes the row's table entry with the reason, and the run goes on.

"spawn", not fork: a forked child would share the parent's torch thread pools and OpenMP state
(unsafe after threads exist) and would start with the parent's heap. A spawned interpreter
inherits `os.environ` as the parent has set it (threads, OMP_WAIT_POLICY, VERSA_CACHE_DIR: they
are real environment variables, which spawn's exec passes on) and the parent's stdout and stderr
descriptors, so its log lines print in order between the parent's. The row is passed by its name
and the module of its table, never as a closure (rows build their cases from lambdas, which do
not pickle).
"""

import importlib
import multiprocessing
import resource
import signal
import sys
from dataclasses import dataclass, field

from bench.driver import Budget, Cell, RowResult


@dataclass(frozen=True)
class Job:
    """Everything a child needs to measure a row, all picklable."""

    row: str  # the row's name in the table
    peers: tuple[str, ...]  # the systems to run (Versa first), as `all_peers` names them
    threads: int
    budget: Budget
    versa_pipeline: str
    targets: tuple[str, ...]  # Versa's targets (section names: "host", "x86-64-v3")
    announced: frozenset[str] = field(default_factory=frozenset)  # unusable peers already logged
    table: str = "bench.rows"  # the module whose ROWS holds the row


@dataclass
class Outcome:
    """The row's result (its `peak_rss_bytes`: the child's) and the peers the child could not use."""

    result: RowResult
    unusable: dict[str, str]  # peer name -> reason, as the child's setup found them


class Isolated:
    """The run's rows, each measured in a process of its own: a peer the children cannot set up is
    logged once, by the first child that finds it so."""

    def __init__(
        self, peers, threads: int, budget: Budget, versa_pipeline: str, targets, log, table="bench.rows"
    ):
        self.peers, self.threads, self.budget = tuple(peers), threads, budget
        self.versa_pipeline, self.targets, self.log, self.table = versa_pipeline, tuple(targets), log, table
        self.announced: set[str] = set()

    def measure(self, row) -> RowResult:
        """`row` (a bench.rows.Row of `self.table`) measured by a child, or the reason it died."""
        announced = frozenset(self.announced)
        job = Job(
            row.name,
            self.peers,
            self.threads,
            self.budget,
            self.versa_pipeline,
            self.targets,
            announced,
            self.table,
        )
        outcome = run(job, row.kind, self.log)
        self.announced |= set(outcome.unusable)
        peak = outcome.result.peak_rss_bytes
        if peak is not None:
            self.log(f"  peak resident memory of the row's process: {peak / 1e9:.2f} GB")
        return outcome.result


def run(job: Job, kind: str, log) -> Outcome:
    """Measure `job.row` in a spawned child and wait for it; `kind` labels the row if it dies."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    child = context.Process(target=_child_main, args=(job, send), name=f"bench row {job.row}")
    sys.stdout.flush()  # the parent's lines before the child's
    sys.stderr.flush()
    child.start()
    send.close()  # the child holds the only writing end: its death reads as EOF here
    try:
        try:
            outcome = receive.recv()
        except EOFError:
            outcome = None
        child.join()
    except KeyboardInterrupt:  # the child got the same SIGINT; make sure it is gone
        child.terminate()
        child.join()
        raise
    finally:
        receive.close()
    if outcome is not None:
        if child.exitcode != 0:  # e.g. a crash in a library's teardown, after the row was measured
            log(f"{job.row}: measured, then {death_reason(child.exitcode)}")
        return outcome
    # ru_maxrss is the largest of all children waited for: it grew only if this child was larger.
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak = after * 1024 if after > before else None
    why = death_reason(child.exitcode)
    log(f"{job.row}: {why}")
    result = RowResult(job.row, kind, 0.0, 0.0, peak_rss_bytes=peak)
    result.cells = {name: Cell("n/a", note=why) for name in job.peers}
    return Outcome(result, {})


def death_reason(exitcode: int | None) -> str:
    """Why a child gave no result, for the table: its signal, or its exit status."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"row process killed by {name}{hint}"
    return f"row process exited with status {exitcode} and no result (its error is on stderr)"


def _child_main(job: Job, send) -> None:
    """The child: set up the peers, measure the row, send the outcome, exit."""
    try:
        send.send(_measure(job))
    except KeyboardInterrupt:
        sys.exit(130)  # the parent reports the interruption; no traceback from here
    finally:
        send.close()


def _measure(job: Job) -> Outcome:
    import torch

    from bench.driver import measure_row, reason
    from bench.peers import all_peers

    def log(line: str) -> None:
        print(line, flush=True)

    torch.set_grad_enabled(False)  # as the parent process would have it (bench/__main__.py)
    row = next(r for r in importlib.import_module(job.table).ROWS if r.name == job.row)
    peers = [p for p in all_peers(job.versa_pipeline, list(job.targets)) if p.name in job.peers]
    unusable = {}
    for peer in peers:
        try:
            peer.setup(job.threads)
        except Exception as err:  # noqa: BLE001  (a missing peer is a table entry)
            unusable[peer.name] = f"unusable here: {reason(err)}"
            if peer.name not in job.announced:
                log(f"{peer.name}: {unusable[peer.name]}")
    result = measure_row(row, peers, unusable, job.budget, log)
    result.peak_rss_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return Outcome(result, unusable)
