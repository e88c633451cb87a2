"""Where candidates compile and run: `KernelWorker` (one per process), and a local pool of them.

A worker compiles a kernel at a point of its strategy's space (the point reaches `versa-codegen`
through a one-entry tuning database, the path every tuned compile takes; strict, so a script
that fails to apply fails the candidate instead of silently measuring plain loops) and keeps the
machine code, so the coordinator can have every worker compile at once and then time the
candidates one at a time, the other workers idle: compiles in parallel, timings in isolation.
Inputs are random (seeded: every worker builds the same arrays for a kernel).

The local pool runs workers in `spawn`ed processes (MLIR and OpenMP state is not fork-safe) and
talks to each over a pipe; `ray_pool.RayPool` is the same interface on a Ray cluster.
"""

import multiprocessing
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from versa.compiler import Chunk, parse_module
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.options import CompileOptions
from versa.passes.cpu.codegen import VersaCodegen
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint
from versa.tuning.extract import codegen_threads

SEED = 0


class KernelWorker:
    """Compiles candidates (`compile`), runs them (`outputs`) and times them (`time`)."""

    def __init__(self, target_name: str, threads: int):
        self.target_name, self.threads = target_name, threads
        self.compiled: dict[str, tuple[object, list[np.ndarray]]] = {}
        self.directory = Path(tempfile.mkdtemp(prefix="versa-tune-"))

    def compile(self, cid: str, text: str, signature: str, strategy: str, point: dict) -> float:
        """Compile candidate `cid`: `text` (a kernel module) with `point` for `signature`.
        Returns the seconds it took; raises with the reason when it fails."""
        start = time.perf_counter()
        options = CompileOptions.create(self.target_name, threads=self.threads, runnable=True)
        database = self.directory / f"{cid}.json"
        threads = codegen_threads(options)
        entry = Entry(
            fingerprint(options.target), threads, signature, code_digest(), "", strategy, point, 0, 0, 0
        )
        TuningDb(database).save([entry])
        options = CompileOptions.create(
            self.target_name, threads=self.threads, runnable=True, tuning_db=str(database)
        )
        # strict: a script that fails to apply fails the candidate (not plain loops measured)
        steps = [replace(s, strict=True) if isinstance(s, VersaCodegen) else s for s in options.lowering()]
        module = parse_module(Chunk(text, 1), make_context())
        function = JitFunction(module, "kernel", pipeline=steps)
        rng = np.random.default_rng(SEED)
        inputs = [_random(rng, spec) for spec in function.inputs]
        self.compiled[cid] = (function, inputs)
        return time.perf_counter() - start

    def outputs(self, cid: str) -> list[np.ndarray]:
        function, inputs = self.compiled[cid]
        return [np.array(o) for o in function(*inputs)]

    def time(self, cid: str, calls: int) -> float:
        """Seconds per call over `calls` back-to-back calls (after one untimed call)."""
        function, inputs = self.compiled[cid]
        function(*inputs)
        start = time.perf_counter()
        for _ in range(calls):
            function(*inputs)
        return (time.perf_counter() - start) / calls

    def drop(self, cids: list[str]) -> None:
        for cid in cids:
            self.compiled.pop(cid, None)


def _random(rng: np.random.Generator, spec) -> np.ndarray:
    if np.issubdtype(spec.dtype, np.floating):
        return rng.standard_normal(spec.shape).astype(spec.dtype)
    if spec.dtype == np.bool_:
        return rng.integers(0, 2, spec.shape).astype(np.bool_)
    return rng.integers(0, 4, spec.shape).astype(spec.dtype)


def _serve(connection, target_name: str, threads: int) -> None:
    worker = KernelWorker(target_name, threads)
    while True:
        request = connection.recv()
        if request is None:
            return
        method, args = request
        try:
            connection.send(("ok", getattr(worker, method)(*args)))
        except Exception as err:  # noqa: BLE001 (any failure is a failed candidate, reported back)
            connection.send(
                ("error", f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
            )


class WorkerError(RuntimeError):
    pass


class LocalPool:
    """`size` worker processes on this machine."""

    def __init__(self, target_name: str, threads: int, size: int):
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for _ in range(max(1, size)):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, target_name, threads), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    @property
    def size(self) -> int:
        return len(self.connections)

    def call(self, worker: int, method: str, *args):
        connection = self.connections[worker]
        connection.send((method, args))
        status, value = connection.recv()
        if status != "ok":
            raise WorkerError(value)
        return value

    def map(self, jobs: list[tuple[int, str, tuple]]) -> list[tuple[str, object]]:
        """Run (worker, method, args) jobs, each worker's in order, all workers at once;
        (status, value) per job."""

        def run(job):
            try:
                return ("ok", self.call(job[0], job[1], *job[2]))
            except WorkerError as err:
                return ("error", str(err))

        by_worker: dict[int, list[int]] = {}
        for i, job in enumerate(jobs):
            by_worker.setdefault(job[0], []).append(i)
        results: list = [None] * len(jobs)

        def drain(indices: list[int]) -> None:
            for i in indices:
                results[i] = run(jobs[i])

        with ThreadPoolExecutor(len(by_worker) or 1) as threads:
            list(threads.map(drain, by_worker.values()))
        return results

    def close(self) -> None:
        for connection, process in zip(self.connections, self.processes, strict=True):
            try:
                connection.send(None)
            except OSError:
                pass
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
