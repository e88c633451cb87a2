"""versa optimize: a model in, a faster artifact and a report out.

    versa optimize model.onnx --out out/                 one model: out/report.{html,json}, lib + header
    versa optimize a.onnx b.pt2 pkg.mod:factory --jobs 2 --out out/   out/<model>/..., out/index.html
    versa optimize model.mlir --ray local                the models as Ray tasks (the `ray` extra)

MODEL is an ONNX file, a saved torch.export program (.pt2, saved with its example inputs), a
.mlir file of versa IR, or `package.module:factory` (a callable returning a torch module and
its example inputs). Each model is imported, compiled, checked against its framework (ONNX
Runtime, torch eager, the NumPy reference), timed before and after, profiled per layer and
written out; `versa.optimizer` documents each step and the report's schema.
"""

import argparse
import os
import sys

from versa.tools.common import ToolError, input_shapes

SUMMARY = "compile a model, check and time it against its framework, profile it, write a report"
FORMATS = ("html", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "models", nargs="+", metavar="MODEL", help=".onnx, .pt2, .mlir or package.module:factory"
    )
    parser.add_argument("--out", default="versa-optimized", help="output folder (default: %(default)s)")
    parser.add_argument("--target", default="host", help="a CPU target this machine runs (default: host)")
    parser.add_argument("-O", dest="opt_level", type=int, default=3, choices=range(4), help="Versa's tier")
    parser.add_argument("--threads", type=int, default=0, help="threads (default: every available core)")
    parser.add_argument("--tune", type=float, default=0.0, metavar="SECONDS", help="tune the kernels first")
    parser.add_argument(
        "--tuning-db", help="the tuning database (default: VERSA_TUNING_DB, ./versa-tuning.json)"
    )
    parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=D,D,...",
        help="fix an input's symbolic dims",
    )
    parser.add_argument("--report", default="html,json", help="report formats (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=20, help="timed rounds per measurement")
    parser.add_argument("--no-artifact", action="store_true", help="no shared library and header")
    parser.add_argument("--force", action="store_true", help="replace existing reports")
    parser.add_argument("--jobs", type=int, default=1, help="models optimised at once (processes)")
    parser.add_argument(
        "--ray", metavar="ADDRESS", help="run the models as Ray tasks ('local': start one here)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary on stdout")
    parser.add_argument("--log-file", help="also write the log to this file")


def _formats(text: str) -> tuple[str, ...]:
    formats = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ToolError(f"--report {text!r}: formats are {', '.join(FORMATS)}")
    return formats


def _log_file(path: str | None) -> None:
    if path is None:
        return
    import logging

    from versa import log

    try:
        handler = logging.FileHandler(path)
    except OSError as err:
        raise ToolError(f"--log-file '{path}': {err.strerror}") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(levelname)s: %(message)s"))
    root = logging.getLogger(log.ROOT)
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)


def run(args: argparse.Namespace) -> int:
    from versa.optimizer.batch import optimize_many, optimize_one
    from versa.optimizer.index import write_index
    from versa.optimizer.report import ReportError, check_out_dir
    from versa.optimizer.run import Settings
    from versa.optimizer.sources import model_format
    from versa.optimizer.summary import summary

    formats = _formats(args.report)
    settings = Settings(
        args.target,
        args.opt_level,
        args.threads,
        args.rounds,
        input_shapes(args.input_shape),
        not args.no_artifact,
        args.tune,
        args.tuning_db,
        progress=not args.quiet and len(args.models) == 1,  # a batch: a bar over the models
    )
    _log_file(args.log_file)
    try:
        if len(args.models) == 1:
            model_format(args.models[0])  # a missing file or no model: an error before any output
            check_out_dir(args.out, args.force)
            result = optimize_one(args.models[0], settings, args.out, args.force, formats)
            results = [result]
        else:
            check_out_dir(args.out, args.force, names=("index.html", "index.json"))
            results = optimize_many(
                args.models,
                settings,
                args.out,
                jobs=args.jobs,
                ray=args.ray,
                force=args.force,
                formats=formats,
            )
            write_index(results, args.out, force=args.force)
    except ReportError as err:
        raise ToolError(str(err)) from None
    failed = [r for r in results if r.report is None or r.report["errors"]]
    if not args.quiet:
        for result in results:
            if result.report is not None:
                print(summary(result.report, result.report_dir))
            else:
                print(f"versa optimize: {result.name}: FAILED at {result.step}: {result.message}")
        if len(results) > 1:
            print(f"index      {os.path.join(args.out, 'index.html')}")
    for result in failed:
        sys.stderr.write(f"versa optimize: error: {result.name}: {result.step}: {result.message}\n")
    return 1 if failed else 0
