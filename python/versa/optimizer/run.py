"""`versa.optimize`: one model from file to a faster artifact and a report.

Each step is timed and recorded; a step that fails is recorded with its error and the steps
that need it are skipped, so a report always says how far the model got and why it stopped.
The accuracy verdict uses Versa's one tolerance policy (`versa.tolerance`: per op, summed over
each output's cone) against the framework's own result; the before/after times are medians of
interleaved calls at the same thread count; the profile is `profile.py`'s. A torch model with
ops Versa does not take runs partitioned, as `versa.compile` runs it (`partitioned.py`).
"""

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from tqdm import tqdm

from versa import clock, compiler, targets, tolerance
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError
from versa.options import CompileOptions
from versa.passes.common import remarks
from versa.signature import find_function

from . import compile_log, measure, partitioned, reference_memory
from . import profile as profiling
from .decisions import decisions, declined
from .sources import Source, load_model

SCHEMA, VERSION = "versa-optimize-report", 1


@dataclass
class Settings:
    target: str = "host"
    opt_level: int = 3
    threads: int = 0
    rounds: int = 20
    input_shapes: dict[str, list[int]] = field(default_factory=dict)
    artifact: bool = True
    tune_s: float = 0.0  # > 0: versa-tune the model's kernels first, within this budget
    tuning_db: str | None = None  # where tuned points go (default: VERSA_TUNING_DB or ./versa-tuning.json)
    progress: bool = False  # a progress bar of the steps on stderr (when it is a terminal)


STEPS = ("import", "compile", "validate", "benchmark", "profile", "memory", "artifact")


class _Steps:
    """The report's steps, each timed and shown on a progress bar (tqdm, on a terminal); a
    failed one records its error and re-raises _Stop."""

    def __init__(self, report: dict, progress: bool):
        self.report = report
        self.bar = tqdm(
            total=len(STEPS), desc=report["model"]["name"], unit="step", leave=False,
            disable=None if progress else True, file=sys.stderr,
        )  # fmt: skip

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[dict]:
        entry = {"name": name, "seconds": 0.0, "status": "ok", "detail": None}
        self.bar.set_postfix_str(name)
        start = time.perf_counter()
        try:
            yield entry
        except CompileError as err:
            self._fail(entry, name, err.format(self.report["model"]["source"]))
        except Exception as err:  # a framework's failure is the model's, not the tool's
            self._fail(entry, name, f"{type(err).__name__}: {err}")
        finally:
            entry["seconds"] = time.perf_counter() - start
            self.report["steps"].append(entry)
            self.bar.update(1 if name in STEPS else 0)

    def _fail(self, entry: dict, name: str, message: str) -> None:
        entry["status"], entry["detail"] = "failed", message.splitlines()[0][:500]
        self.report["errors"].append({"step": name, "message": message})
        raise _Stop(name)

    def skip(self, name: str, why: str) -> None:
        self.report["steps"].append({"name": name, "seconds": 0.0, "status": "skipped", "detail": why})


class _Stop(Exception):
    pass


def _tensor(name: str, array: np.ndarray) -> dict:
    return {"name": name, "shape": list(array.shape), "dtype": str(array.dtype)}


def _machine(target: targets.Target, threads: int) -> dict:
    """The limits the profile's rates are shares of: the f32 FMA peak of the target's code on
    `threads` cores at the measured clock (`versa.clock`); bandwidth is not measured here."""
    try:
        ghz = clock.measure_ghz(threads, repeat=3)
        peak = clock.fma_peak_gflops(threads, target.lanes(32), ghz)
    except Exception:  # noqa: BLE001  (no clock on this machine: the report has no peak)
        peak = None
    return {
        "cpu": target.cpu,
        "isa": target.isa,
        "cores": threads,
        "vector_bits": target.vector_bits,
        "fma_peak_gflops": peak,
        "bandwidth_gbs": None,
    }


def optimize_model(model, settings: Settings, out_dir: str | None = None, example_inputs=()) -> dict:
    """Everything `versa optimize` does for one model (a path, `package.module:factory`, or a
    torch module called on `example_inputs`), as the report (see report_schema.json)."""
    from versa.version import version

    options = CompileOptions.create(
        settings.target, opt_level=settings.opt_level, threads=settings.threads, runnable=True
    )
    report: dict = {
        "schema": SCHEMA,
        "version": VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "versa": {"version": version()},
        "model": {
            "name": _name(model),
            "source": _name(model) if not isinstance(model, str) else model,
            "format": _format(model),
            "inputs": [],
            "outputs": [],
        },
        "options": {
            "target": settings.target,
            "opt_level": settings.opt_level,
            "threads": options.threads,
            "tune": settings.tune_s or False,
            "input_shapes": settings.input_shapes,
        },
        "machine": _machine(options.target, options.threads),
        "steps": [],
        "compile": None,
        "accuracy": None,
        "timing": None,
        "profile": None,
        "memory": None,
        "decisions": [],
        "fallbacks": [],
        "partitioning": None,
        "artifact": None,
        "errors": [],
    }
    steps = _Steps(report, settings.progress)
    with contextlib.suppress(_Stop):
        _run(model, settings, options, report, steps, out_dir, example_inputs)
    steps.bar.close()
    done = {s["name"] for s in report["steps"]}
    for name in STEPS:
        if name not in done:
            steps.skip(name, "an earlier step failed")
    return report


def _format(model) -> str:
    """The format MODEL claims (its suffix), before it is read: a failed import still says it."""
    if not isinstance(model, str):
        return "torch"
    suffix = os.path.splitext(model)[1].lower()
    return {".onnx": "onnx", ".pt2": "pt2", ".mlir": "mlir"}.get(
        suffix, "torch" if ":" in model else "unknown"
    )


def _name(model) -> str:
    return os.path.basename(model) if isinstance(model, str) else type(model).__name__


def _run(model, settings, options, report, steps, out_dir, example_inputs) -> None:
    with steps.step("import") as entry:
        source = load_model(model, settings.input_shapes or None, options.threads, example_inputs)
        report["model"].update(
            name=source.name,
            format=source.format,
            inputs=[_tensor(n, a) for n, a in zip(source.input_names, source.inputs, strict=True)],
        )
        if source.module is not None:
            policy = tolerance.for_function(find_function(source.module, None))
            optimised = profiling.copy_module(source.module)
            with remarks.collected() as said:  # what versa-fuse declined, and why
                compiler.run_passes(optimised, options.versa_passes())
            report["decisions"] = decisions(optimised) + declined(said)
        else:
            entry["detail"] = "not whole: the ops Versa does not take run in PyTorch, the rest in partitions"
    if source.module is None:  # as versa.compile runs it: partitions compiled, the rest eager
        return partitioned.run_steps(source, settings, options, report, steps, out_dir)
    if settings.tune_s > 0:
        with steps.step("tune") as entry:
            options = _tuned(source, options, settings, report, entry)
    with steps.step("compile") as entry, compile_log.records("compiler", logging.INFO) as passes:
        with compile_log.records("codegen", logging.DEBUG) as chosen, remarks.collected() as said:
            start = time.perf_counter()
            function = JitFunction(profiling.copy_module(source.module), pipeline=options.passes())
        timings = compile_log.pass_times(passes)
        report["compile"] = {
            "seconds": time.perf_counter() - start,
            "cache": function_cache(function),
            "passes": timings,
        }
        report["decisions"] += compile_log.strategies(chosen) + declined(said, "versa-codegen")
        entry["detail"] = f"{len(timings)} passes" if timings else "from the compile cache"
    with steps.step("validate"):
        got = function(*source.inputs)
        want = source.reference(source.inputs)
        report["model"]["outputs"] = [_tensor(f"output{i}", g) for i, g in enumerate(got)]
        report["accuracy"] = measure.accuracy(source, got, want, policy)
    with steps.step("benchmark") as entry:
        measure.benchmark(source, function, options, settings, report, entry)
    with steps.step("profile"):
        found = profiling.profile_module(source.module, options, source.inputs, settings.rounds, function)
        report["profile"] = profiling.as_report(found, report["machine"]["fma_peak_gflops"])
    with steps.step("memory") as entry:
        report["memory"] = measure.memory(source, function)
        peak = reference_memory.measure(model, source.format, settings.input_shapes, options.threads)
        report["memory"]["reference_peak_bytes"] = peak
        entry["detail"] = (
            "the reference measured in a fresh process" if peak is not None else "no reference measurement"
        )
    if settings.artifact and out_dir is not None:
        with steps.step("artifact"):
            from .artifact import write_artifact

            report["artifact"] = write_artifact(source, options, out_dir)
    else:
        steps.skip("artifact", "not asked for")


def _tuned(
    source: Source, options: CompileOptions, settings: Settings, report: dict, entry: dict
) -> CompileOptions:
    """Tune the model's kernels into the database; the options that compile with it."""
    from dataclasses import replace

    from versa.tuning.api import tune
    from versa.tuning.db import database_path

    database = database_path(settings.tuning_db)
    found = tune(
        source.module,
        budget_s=settings.tune_s,
        tuning_db=database,
        progress=False,
        options=replace(options, tuning_db=database),
    )
    for kernel in found:
        point = ", ".join(f"{k}={v}" for k, v in kernel.point.items()) or "the analytic choice"
        report["decisions"].append(
            {
                "kind": "tuning",
                "subject": f"{kernel.kernel.strategy} x{kernel.kernel.uses}",
                "message": f"{point}: {kernel.speedup:.2f}x the analytic choice ({kernel.measured} measured)",
                "location": None,
            }
        )
    entry["detail"] = f"{len(found)} kernel(s), database {database}"
    return replace(options, tuning_db=database)


def function_cache(function: JitFunction) -> str:
    """Whether the compile cache gave this function's code ("off": no cache is configured)."""
    from versa.cache import jit as cached

    if function.from_cache:
        return "hit"
    return "off" if cached.store() is None else "miss"
