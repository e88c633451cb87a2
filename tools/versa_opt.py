"""versa-opt: mlir-opt for versa IR. Parses, verifies, runs passes, prints.

    versa-opt model.mlir --versa-fuse --lower-to-llvm -o out.mlir
    versa-opt in.mlir --pass-pipeline='builtin.module(versa-fuse,canonicalize,lower-to-llvm)'

Every pass flag (Versa or upstream, `--name` or `--name=opt=val`) runs in the order given.
A pass that fails on valid input (a bug) leaves a reproducer (`versa.reproducer`): its path is in
the error, and `versa-opt --run-reproducer FILE` replays it. `--remarks-filter=REGEX` (and
`-passed`, `-missed`) prints the passes' remarks as mlir-opt does (`passes/common/remarks.py`).
"""

import argparse
import contextlib
import re
import sys

from versa import compiler, reproducer, targets
from versa.context import make_context
from versa.diagnostics import CompileError, Diagnostic, from_mlir, location_line_col
from versa.dialects.versa import irdl_text
from versa.mlir import ir
from versa.passes import PASSES, PIPELINES
from versa.passes.common import remarks
from versa.tools.common import (
    ArgumentParser,
    ToolError,
    add_verbosity,
    configure_logging,
    read_input,
    tool_main,
    write_output,
)
from versa.verify_diagnostics import check, expectations

TOOL_FLAGS = {
    "-o",
    "--pass-pipeline",
    "--split-input-file",
    "--verify-diagnostics",
    "--mlir-print-ir-after-all",
    "--mlir-print-ir-after-failure",
    "--mlir-reproducer-dir",
    "--run-reproducer",
    "--mlir-timing",
    "--list-passes",
    "--list-targets",
    "--target",
    "--emit-irdl",
    "--remarks-filter",
    "--remarks-filter-passed",
    "--remarks-filter-missed",
    "--verbose",
    "-h",
    "--help",
}


_VALUED = (
    "-o",
    "--pass-pipeline",
    "--target",
    "--mlir-reproducer-dir",
    "--remarks-filter",
    "--remarks-filter-passed",
    "--remarks-filter-missed",
)


def split_pass_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separate pass flags (kept in order, as pipeline elements) from the tool's own flags."""
    tool_args, elements, i = [], [], 0
    while i < len(argv):
        arg = argv[i]
        name, _, value = arg.partition("=")
        if arg.startswith("--") and name not in TOOL_FLAGS:
            elements.append(name[2:] + ("{" + value.strip("'\"") + "}" if value else ""))
        else:
            tool_args.append(arg)
            if arg in _VALUED and i + 1 < len(argv):
                tool_args.append(argv[i + 1])
                i += 1
        i += 1
    return tool_args, elements


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    tool_args, elements = split_pass_flags(argv)
    parser = ArgumentParser(prog="versa-opt", description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", default="-")
    parser.add_argument("-o", dest="output", default="-")
    parser.add_argument("--pass-pipeline", default="")
    parser.add_argument("--split-input-file", action="store_true")
    parser.add_argument("--verify-diagnostics", action="store_true")
    parser.add_argument("--mlir-print-ir-after-all", action="store_true")
    parser.add_argument(
        "--mlir-print-ir-after-failure", action="store_true", help="print the IR a pass failed on"
    )
    parser.add_argument(
        "--mlir-reproducer-dir",
        default=None,
        help="where reproducers of failing passes go (default: temp dir)",
    )
    parser.add_argument(
        "--run-reproducer", action="store_true", help="run the pipeline that the input reproducer names"
    )
    parser.add_argument("--mlir-timing", action="store_true")
    parser.add_argument("--list-passes", action="store_true")
    parser.add_argument("--list-targets", action="store_true", help="the targets --target accepts")
    parser.add_argument(
        "--target", default=None, help="default target of the pipelines (versa-optimize, lower-to-*)"
    )
    parser.add_argument("--emit-irdl", action="store_true")
    remark = "print the %s remarks of passes whose name matches REGEX (file:line:col: remark: ...)"
    parser.add_argument("--remarks-filter", metavar="REGEX", help=remark % "applied and missed")
    parser.add_argument("--remarks-filter-passed", metavar="REGEX", help=remark % "applied")
    parser.add_argument("--remarks-filter-missed", metavar="REGEX", help=remark % "missed")
    add_verbosity(parser)
    return parser.parse_args(tool_args), elements


def list_passes() -> str:
    lines = ["Versa passes:"]
    lines += [f"  --{name:<28} {cls.summary}" for name, cls in sorted(PASSES.items())]
    lines += ["Versa pipelines:"]
    lines += [f"  --{name:<28} {cls.summary}" for name, cls in sorted(PIPELINES.items())]
    lines += ["Every upstream MLIR pass is accepted too (e.g. --canonicalize, --cse)."]
    return "\n".join(lines) + "\n"


def process_chunk(
    chunk: compiler.Chunk, elements: list, args: argparse.Namespace, context: ir.Context, filename: str = "-"
) -> str:
    module = compiler.parse_module(chunk, context)
    wanted = remark_filter(args)
    listen = remarks.collected() if wanted.active() else contextlib.nullcontext([])
    with listen as found:
        try:
            compiler.run_passes(
                module,
                elements,
                keep_input=True,
                print_ir_after_all=args.mlir_print_ir_after_all,
                print_ir_after_failure=args.mlir_print_ir_after_failure,
                timing=args.mlir_timing,
            )
        except compiler.PassFailure as failure:
            failure.diagnostics.append(save_reproducer(failure, elements, args.mlir_reproducer_dir))
            raise
        finally:
            for remark in found:  # before the errors: what the passes said on the way there
                if wanted.wants(remark):
                    line, col = location_line_col(remark.location)
                    sys.stderr.write(
                        Diagnostic("remark", remark.message(), line, col).format(filename) + "\n"
                    )
    return str(module)


def remark_filter(args: argparse.Namespace) -> remarks.Filter:
    """The remarks `--remarks-filter*` ask for; a pattern that is no regular expression is a
    ToolError (exit code 1)."""
    patterns = (args.remarks_filter, args.remarks_filter_passed, args.remarks_filter_missed)
    for flag, pattern in zip(("", "-passed", "-missed"), patterns, strict=True):
        try:
            re.compile(pattern or "")
        except re.error as err:
            raise ToolError(f"--remarks-filter{flag}: '{pattern}' is no regular expression: {err}") from None
    return remarks.Filter(*patterns)


def save_reproducer(failure: compiler.PassFailure, elements: list, directory: str | None) -> Diagnostic:
    """A note naming the reproducer of `failure`, or why none could be written."""
    try:
        return reproducer.note(reproducer.write(directory, failure, elements))
    except OSError as err:
        return Diagnostic("note", f"could not write a reproducer to '{directory}': {err.strerror}")


def run(argv: list[str]) -> int:
    args, flag_elements = parse_args(argv)
    configure_logging(args.verbose)
    if args.list_passes:
        sys.stdout.write(list_passes())
        return 0
    if args.list_targets:
        sys.stdout.write(targets.listing() + "\n")
        return 0
    if args.emit_irdl:
        write_output(args.output, irdl_text())
        return 0
    filename, data = read_input(args.input)
    try:
        text = compiler.decode(data)
        if args.run_reproducer:
            if args.pass_pipeline or flag_elements:
                raise ToolError("--run-reproducer takes its pipeline from the reproducer, not from flags")
            args.pass_pipeline = reproducer.read_pipeline(text)
        elements = compiler.parse_pipeline(args.pass_pipeline, args.target) if args.pass_pipeline else []
        for element in flag_elements:
            elements += compiler.parse_pipeline(element, args.target)
    except CompileError as err:
        sys.stderr.write(err.format(filename) + "\n")
        return 1
    outputs, failed = [], False
    for chunk in compiler.split_input(text, args.split_input_file):
        try:
            if args.verify_diagnostics:
                failed |= verify_chunk(chunk, elements, args, filename)
                continue
            outputs.append(process_chunk(chunk, elements, args, reporting_context(filename), filename))
        except CompileError as err:
            sys.stderr.write(err.format(filename) + "\n")
            failed = True
    if outputs:
        write_output(args.output, "// -----\n".join(outputs))
    return 1 if failed else 0


def reporting_context(filename: str) -> ir.Context:
    """A context whose stray diagnostics (warnings, remarks) print as `file:line:col: ...`;
    errors reach the tool through CompileError instead."""
    context = make_context()

    def report(diagnostic) -> bool:
        sys.stderr.write(from_mlir(diagnostic).format(filename) + "\n")
        return True

    context.attach_diagnostic_handler(report)
    return context


def verify_chunk(chunk: compiler.Chunk, elements: list, args, filename: str) -> bool:
    """Run one chunk, capturing every diagnostic; True when they disagree with expected-*."""
    captured: list[Diagnostic] = []
    try:
        context = make_context()
        context.attach_diagnostic_handler(lambda d: captured.append(from_mlir(d)) or True)
        process_chunk(chunk, elements, args, context, filename)
    except CompileError as err:
        captured.extend(err.diagnostics)
    problems = check(expectations(chunk.text, chunk.first_line), captured, filename)
    for p in problems:
        sys.stderr.write(p + "\n")
    return bool(problems)


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
