"""Many models at once: `versa optimize a.onnx b.pt2 ... --jobs N` (a process pool) or
`--ray ADDRESS` (the same work as Ray tasks). Each model gets its own folder and report; one
that fails does not stop the others, and the index says why it failed.

Worker processes are spawned, not forked: a fork of a process that has run OpenMP code, torch
or an MLIR context is not safe. Timings from parallel jobs share the machine: the reports say
how many ran at once (`steps`' detail), and a figure to rely on comes from `--jobs 1`.
"""

import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

from tqdm import tqdm

from .index import ModelResult
from .run import Settings, optimize_model


def folder_name(model: str, taken: set[str]) -> str:
    """A folder name for `model` unique among `taken` (its file stem, or the factory's name)."""
    stem = os.path.splitext(os.path.basename(model.split(":")[-1]))[0] or "model"
    stem = re.sub(r"[^\w.-]", "_", stem)
    name, n = stem, 2
    while name in taken:
        name, n = f"{stem}-{n}", n + 1
    taken.add(name)
    return name


def optimize_one(
    model: str, settings: Settings, out_dir: str, force: bool, formats: tuple[str, ...]
) -> ModelResult:
    """One model, its outputs written to `out_dir`; never raises for the model's own failure."""
    from .report import ReportError, write_outputs

    name = os.path.basename(out_dir)
    try:
        report = optimize_model(model, settings, out_dir)
        write_outputs(report, out_dir, force=force, formats=formats)
    except ReportError as err:
        return ModelResult(name, step="report", message=str(err))
    except Exception as err:  # noqa: BLE001  (a bug must not stop the other models)
        return ModelResult(name, step="internal", message=f"{type(err).__name__}: {err}")
    errors = report["errors"]
    first = errors[0] if errors else None
    return ModelResult(
        name,
        report,
        out_dir,
        first["step"] if first else None,
        first["message"].splitlines()[0] if first else None,
    )


def optimize_many(
    models: list[str],
    settings: Settings,
    out_dir: str,
    *,
    jobs: int = 1,
    ray: str | None = None,
    force: bool = False,
    formats: tuple[str, ...] = ("html", "json"),
) -> list[ModelResult]:
    """Every model into `out_dir/<name>/`, in input order."""
    taken: set[str] = set()
    work = [(model, os.path.join(out_dir, folder_name(model, taken))) for model in models]
    if ray:
        return _on_ray(work, settings, force, formats, ray)
    if jobs <= 1:
        bar = tqdm(work, unit="model", leave=False, file=sys.stderr, disable=None if len(work) > 1 else True)
        return [optimize_one(m, settings, d, force, formats) for m, d in bar]
    results: dict[int, ModelResult] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {
            pool.submit(optimize_one, m, settings, d, force, formats): i for i, (m, d) in enumerate(work)
        }
        for future in tqdm(
            as_completed(futures), total=len(futures), unit="model", leave=False, file=sys.stderr
        ):
            i = futures[future]
            try:
                results[i] = future.result()
            except Exception as err:  # noqa: BLE001  (a worker that died: its model failed)
                results[i] = ModelResult(os.path.basename(work[i][1]), step="worker", message=str(err))
    return [results[i] for i in range(len(work))]


def _on_ray(work, settings: Settings, force: bool, formats, address: str) -> list[ModelResult]:
    """The same calls as Ray tasks ("local": a Ray started in this process for the run)."""
    import ray  # the optional `ray` extra

    started = not ray.is_initialized()
    if started:
        ray.init(
            address=None if address == "local" else address, include_dashboard=False, log_to_driver=False
        )
    try:
        task = ray.remote(optimize_one)
        refs = [task.remote(m, settings, d, force, formats) for m, d in work]
        return list(ray.get(refs))
    finally:
        if started:
            ray.shutdown()
