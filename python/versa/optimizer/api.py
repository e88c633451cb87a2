"""`versa.optimize(...)`: the Python face of `versa optimize`."""

from collections.abc import Sequence

from .run import Settings


def optimize(
    model,
    out: str | None = None,
    *,
    example_inputs: Sequence = (),
    target: str = "host",
    opt_level: int = 3,
    threads: int = 0,
    tune: float = 0.0,
    input_shapes: dict[str, list[int]] | None = None,
    rounds: int = 20,
    force: bool = False,
    formats: Sequence[str] = ("html", "json"),
) -> dict:
    """Optimise `model` (a path or `package.module:factory` as on the command line, or a torch
    module called on `example_inputs`) and return its report (report_schema.json); with `out`,
    also write the report and the artifact there (an existing report only with `force`)."""
    from .report import check_out_dir, write_outputs
    from .run import optimize_model

    settings = Settings(target, opt_level, threads, rounds, dict(input_shapes or {}), out is not None, tune)
    if out is not None:
        check_out_dir(out, force)
    report = optimize_model(model, settings, out, example_inputs=example_inputs)
    if out is not None:
        write_outputs(report, out, force=force, formats=tuple(formats))
    return report
