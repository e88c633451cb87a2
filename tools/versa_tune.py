"""versa-tune: measure codegen strategy choices for a program and record the best in a tuning
database that later compiles read.

    versa-tune model.mlir --budget 2m --db tuned.json
    VERSA_TUNING_DB=tuned.json versa-run model.mlir --random      (reads it)
    versa-tune model.mlir --list-space                             (the knobs, nothing measured)
    versa-tune model.mlir --ray 10.0.0.5:6379 --budget 10m          (workers on a Ray cluster)

For each distinct op signature (shape, types, fused epilogue) of the program compiled for
`--target` with `--threads`, candidates of its strategy's search space compile in parallel
worker processes and are timed one at a time (see `versa.tuning.tuner`). Kernels the database
already holds for this machine kind and code are not measured again. The program's own entry
is never run; its file is only read.
"""

import argparse
import os
import re
import sys

from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.options import CompileOptions
from versa.tools.common import (
    ArgumentParser,
    ToolError,
    add_verbosity,
    configure_logging,
    read_input,
    tool_main,
)


def budget_seconds(text: str) -> float:
    """`90`, `90s`, `2m`, `1.5h` → seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 2m, 1h)")
    return float(match[1]) * {"": 1, "s": 1, "m": 60, "h": 3600}[match[2]]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-tune", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="versa IR (.mlir)")
    parser.add_argument(
        "--db", help="the tuning database (default: $VERSA_TUNING_DB, else ./versa-tuning.json)"
    )
    parser.add_argument("--budget", type=budget_seconds, default=120.0, help="time to spend (default 2m)")
    parser.add_argument("--target", default="host", help="a CPU target this machine runs (default host)")
    parser.add_argument("--threads", type=int, default=0, help="threads of the code (default: every core)")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="compile workers (default: one per core)")
    parser.add_argument("--ray", metavar="ADDRESS", help="workers on this Ray cluster ('local': a local one)")
    parser.add_argument(
        "--list-space", action="store_true", help="print each kernel's knobs; measure nothing"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_verbosity(parser)
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    configure_logging(args.verbose)
    from versa.tuning import api, db, extract  # noqa: PLC0415 (the CLI's --help stays fast)

    filename, data = read_input(args.input)
    options = CompileOptions.create(args.target, threads=args.threads, runnable=True)
    if options.target.kind != "cpu":
        raise ToolError(f"versa-tune tunes CPU code; {args.target} is a {options.target.kind} target")
    database = db.database_path(args.db)
    if os.path.exists(database) and os.path.samefile(database, filename):
        raise ToolError(f"refusing to use the input file '{filename}' as the database")
    try:
        db.TuningDb.load(database)  # a file that is no database is refused before any work
    except ValueError as err:
        raise ToolError(str(err)) from None
    if args.ray:
        try:
            import ray  # noqa: F401, PLC0415 (optional extra)
        except ImportError:
            raise ToolError("--ray needs Ray: pip install 'versa[ray]'") from None
    try:
        text = compiler.decode(data)
        compiler.parse_module(compiler.Chunk(text, 1), make_context())  # located errors first
        if args.list_space:
            for kernel in extract.distinct_kernels(text, options):
                size = kernel.space.size()
                print(f"{kernel.signature.summary} ({kernel.strategy}, {kernel.uses} use(s), {size} points)")
                print(kernel.space.describe())
            return 0
        reports = api.tune(
            text,
            budget_s=args.budget,
            tuning_db=database,
            jobs=args.jobs,
            ray=args.ray,
            progress=not args.quiet,
            options=options,
        )
    except CompileError as err:
        sys.stderr.write(err.format(filename) + "\n")
        return 1
    print(summary(reports, database))
    return 0


def summary(reports, database: str) -> str:
    lines = [f"{'kernel':<56} {'uses':>4} {'default':>10} {'tuned':>10} {'speedup':>7}  point"]
    for r in reports:
        if not r.best_s:
            lines.append(f"{r.kernel.signature.summary:<56} failed: {'; '.join(r.failed[:1])}")
            continue
        state = " (db)" if r.cached else ""
        lines.append(
            f"{r.kernel.signature.summary:<56} {r.kernel.uses:>4} {r.default_s * 1e3:>8.3f}ms "
            f"{r.best_s * 1e3:>8.3f}ms {r.speedup:>6.2f}x  {r.point}{state}"
        )
    measured = sum(r.measured for r in reports)
    lines.append(f"{len(reports)} kernel(s), {measured} candidate(s) measured; database: {database}")
    return "\n".join(lines)


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    sys.exit(main())
