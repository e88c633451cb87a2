"""`versa.tune`: tune a program (versa IR text, an MLIR module, or a torch module with example
inputs) into a tuning database, as `versa-tune` does from the command line."""

from collections.abc import Sequence

from versa.mlir import ir
from versa.options import CompileOptions
from versa.tuning.db import database_path

DEFAULT_BUDGET_S = 120.0


def program_text(program, example_inputs: Sequence = ()) -> str:
    """Versa IR text of `program`: text as it is, a module printed, a torch module imported."""
    if isinstance(program, str):
        return program
    if isinstance(program, ir.Module):
        return program.operation.get_asm(enable_debug_info=True)
    from versa.frontends.torch import import_torch  # noqa: PLC0415 (torch only when given one)

    return import_torch(program, tuple(example_inputs)).operation.get_asm(enable_debug_info=True)


def tune(
    program,
    example_inputs: Sequence = (),
    *,
    budget_s: float = DEFAULT_BUDGET_S,
    tuning_db: str | None = None,
    target: str | None = None,
    threads: int = 0,
    jobs: int = 0,
    ray: str | None = None,
    progress: bool = True,
    options: CompileOptions | None = None,
):
    """Tune `program` for `target` (the host by default) with `threads` within `budget_s`
    seconds; returns the per-kernel reports (`tuner.KernelReport`). The database (`tuning_db`,
    VERSA_TUNING_DB, or ./versa-tuning.json) is merged into, never truncated. Worker processes
    are spawned: a script calling this needs the `if __name__ == "__main__":` guard."""
    from versa.tuning import tuner  # noqa: PLC0415

    database = database_path(tuning_db)
    options = options or CompileOptions.create(target, threads=threads, runnable=True, tuning_db=database)
    pool = None
    if ray:
        from versa.tuning.db import fingerprint  # noqa: PLC0415
        from versa.tuning.ray_pool import RayPool  # noqa: PLC0415 (optional extra)

        pool = RayPool(ray, options.lowering(), fingerprint(options.target), size=jobs)
    try:
        text = program_text(program, example_inputs)
        return tuner.tune(text, options, database, budget_s, pool=pool, jobs=jobs, progress=progress)
    finally:
        if pool is not None:
            pool.close()
