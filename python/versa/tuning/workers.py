"""Where candidates compile and run: `KernelWorker` (one per process), and a local pool of them.

A worker compiles a kernel at a point of its strategy's space (the point reaches `versa-codegen`
through a one-entry tuning database, the path every tuned compile takes; strict, so a script
that fails to apply fails the candidate instead of silently measuring plain loops) and keeps the
machine code, so the coordinator can have every worker compile at once and then time the
candidates one at a time, the other workers idle: compiles in parallel, timings in isolation.
A compile is two halves: `lower` (MLIR, to the llvm dialect: any machine can do it, given the
steps the target's machine built) and `load` (LLVM's machine code, where it will be timed).
Inputs are random (seeded: every worker builds the same arrays for a kernel), and so are the
weights a kernel keeps as constants (`extract.materialize`). Every pass that reads a tuning
database reads the point's (versa-pack-weights decides `prepack` there, versa-codegen the rest).
A loaded candidate is known by a digest of its lowered module: two points that emit the same
code (a pre-packed B makes the matmul's tiles moot) are measured once.

The local pool runs workers in `spawn`ed processes (MLIR and OpenMP state is not fork-safe) and
talks to each over a pipe; `ray_pool.RayPool` is the same interface on a Ray cluster.
"""

import hashlib
import io
import multiprocessing
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from versa.compiler import Chunk, parse_module, run_passes
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.passes.cpu.codegen import VersaCodegen
from versa.signature import TensorSpec, find_function
from versa.tuning.db import Entry, TuningDb, code_digest, fingerprint
from versa.tuning.extract import ENTRY, materialize

SEED = 0


class KernelWorker:
    """Compiles candidates (`compile` = `lower` then `load`), runs them (`outputs`) and times them
    (`time`). `steps` are lower-to-llvm's for the target and thread count, built where the code
    will run (its thread count, its OpenMP runtime), so that a worker on another machine lowers
    exactly as the target machine would."""

    def __init__(self, steps: list):
        self.steps = steps
        self.codegen = next(s for s in steps if isinstance(s, VersaCodegen))
        self.compiled: dict[str, tuple[JitFunction, list[np.ndarray]]] = {}
        self.directory = Path(tempfile.mkdtemp(prefix="versa-tune-"))
        self.count = 0

    def lower(self, text: str, signature: str, strategy: str, point: dict) -> tuple[bytes, list, list]:
        """`text` (a kernel module) lowered to the llvm dialect (as bytecode: a kept weight is
        binary there, megabytes as text) with `point` for `signature`, read from a one-entry
        database by every pass that reads one (versa-codegen strictly: a script that fails to
        apply fails the candidate instead of measuring plain loops); with the entry's specs."""
        self.count += 1
        database = self.directory / f"{self.count}.json"
        key = (fingerprint(self.codegen.target), self.codegen.threads, signature, code_digest())
        TuningDb(database).save([Entry(*key, "", strategy, point, 0, 0, 0)])
        steps = [_reading(s, str(database), s is self.codegen) for s in self.steps]
        module = parse_module(Chunk(text, 1), make_context())
        with module.context:
            materialize(module)
        function = find_function(module, ENTRY)
        inputs = [TensorSpec.of(t) for t in function.type.inputs]
        outputs = [TensorSpec.of(t) for t in function.type.results]
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(module.context)
        run_passes(module, steps)
        code = io.BytesIO()
        module.operation.write_bytecode(code)
        return code.getvalue(), inputs, outputs

    def load(self, cid: str, lowered: tuple[bytes, list, list]) -> str:
        """Machine code for a lowered candidate, with the kernel's random inputs (seeded); the
        digest of its code."""
        code, inputs, outputs = lowered
        module = ir.Module.parse(code, make_context())
        function = JitFunction.lowered(module, ENTRY, inputs, outputs)
        rng = np.random.default_rng(SEED)
        self.compiled[cid] = (function, [_random(rng, spec) for spec in function.inputs])
        return hashlib.sha256(code).hexdigest()[:20]

    def compile(self, cid: str, text: str, signature: str, strategy: str, point: dict) -> str:
        """`lower` and `load` here; the digest of the code. Raises with the reason when it fails."""
        return self.load(cid, self.lower(text, signature, strategy, point))

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


def _reading(step, database: str, strict: bool):
    """`step` reading the tuning database `database`, if it reads one."""
    if getattr(step, "tuning_db", None) is None:
        return step
    return replace(step, tuning_db=database, strict=True) if strict else replace(step, tuning_db=database)


def _random(rng: np.random.Generator, spec) -> np.ndarray:
    if np.issubdtype(spec.dtype, np.floating):
        return rng.standard_normal(spec.shape).astype(spec.dtype)
    if spec.dtype == np.bool_:
        return rng.integers(0, 2, spec.shape).astype(np.bool_)
    return rng.integers(0, 4, spec.shape).astype(spec.dtype)


def _serve(connection, steps: list) -> None:
    worker = KernelWorker(steps)
    while True:
        request = connection.recv()
        if request is None:
            return
        method, args = request
        try:
            connection.send(("ok", getattr(worker, method)(*args)))
        except Exception as err:  # noqa: BLE001 (any failure is a failed candidate, reported back)
            connection.send(("error", reason(err)))


def reason(err: BaseException) -> str:
    """An exception in one line: its type and its message's first line."""
    lines = str(err).splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"


class WorkerError(RuntimeError):
    pass


class LocalPool:
    """`size` worker processes on this machine."""

    def __init__(self, steps: list, size: int):
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for _ in range(max(1, size)):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, steps), daemon=True)
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
