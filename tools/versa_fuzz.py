"""versa-fuzz: differential fuzzing of the compiler against the NumPy reference.

    versa-fuzz --seconds 600 --seed 1 --jobs 2        # a campaign; findings → test/Fuzz/regressions
    versa-fuzz --programs 200 --seed 7 --no-save      # the same 200 programs every time
    versa-fuzz --replay test/Fuzz/regressions/*.mlir  # judge saved cases again (their lit RUN line)

Every program runs through each pipeline in a worker subprocess (crashes and hangs are
findings) and must match the reference and the other pipelines within `versa.tolerance`.
Exit code 1 when there are findings.
"""

import argparse
import re
import sys
from pathlib import Path

from versa.fuzz import campaign
from versa.fuzz.mutate import load_corpus
from versa.fuzz.oracle import PIPELINES
from versa.fuzz.worker import Worker
from versa.tools.common import ArgumentParser, ToolError, read_input, tool_main

CORPUS_ROOTS = ("test", "examples")
BAR_WIDTH = 30


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, help="stop after this long (default: 60 unless --programs)")
    parser.add_argument("--programs", type=int, help="stop after this many programs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per program before a hang")
    parser.add_argument("--pipelines", default=",".join(PIPELINES), help=f"subset of {','.join(PIPELINES)}")
    parser.add_argument("--max-ops", type=int, default=8, help="ops per generated program (at most)")
    parser.add_argument("--mutants", type=float, default=0.25, help="share of mutated test programs")
    parser.add_argument(
        "--dynamic",
        type=float,
        default=campaign.DYNAMIC_SHARE,
        help="share of programs made dynamic (`?` dims)",
    )
    parser.add_argument(
        "--quantized",
        type=float,
        default=campaign.QUANTIZED_SHARE,
        help="share of quantized chains (quantize, qmatmul/qconv2d, requantize, dequantize)",
    )
    parser.add_argument("--corpus", nargs="*", default=None, help="dirs of .mlir programs to mutate")
    parser.add_argument("--save", default="test/Fuzz/regressions", help="where reduced findings go")
    parser.add_argument("--no-save", action="store_true", help="report findings, save nothing")
    parser.add_argument("--no-reduce", action="store_true", help="save findings unreduced")
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="judge these .mlir files instead")
    return parser.parse_args(argv)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    pipelines = [p.strip() for p in args.pipelines.split(",") if p.strip()]
    unknown = [p for p in pipelines if p not in PIPELINES]
    if unknown:
        raise ToolError(f"unknown pipeline(s) {', '.join(unknown)} (known: {', '.join(PIPELINES)})")
    if args.replay:
        return replay(args.replay, pipelines, args.timeout)
    roots = args.corpus if args.corpus is not None else [r for r in CORPUS_ROOTS if Path(r).is_dir()]
    corpus = load_corpus(Path(r) for r in roots) if args.mutants > 0 else []
    source = campaign.Source(
        args.seed, corpus, args.mutants, args.max_ops, dynamic=args.dynamic, quantized=args.quantized
    )
    seconds = args.seconds if args.seconds is not None or args.programs is not None else 60.0
    report = campaign.run(
        source,
        programs=args.programs,
        seconds=seconds,
        jobs=max(1, args.jobs),
        timeout=args.timeout,
        pipelines=pipelines,
        progress=progress_bar if sys.stderr.isatty() else None,
    )
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print(report.summary())
    findings = first_of_each_kind(report.findings)
    if findings and not args.no_reduce:
        campaign.reduce_findings(findings, max(1, args.jobs), args.timeout)
    for finding in campaign.unique(findings):
        v, case = finding.verdict, finding.case
        print(f"  program {case.index} ({case.origin}): {v.kind} in {v.pipeline}: {v.message[:200]}")
    if findings and not args.no_save:
        for path in campaign.save(campaign.unique(findings), Path(args.save), args.seed):
            print(f"  saved {path}")
    return 1 if report.findings else 0


def first_of_each_kind(findings: list[campaign.Finding]) -> list[campaign.Finding]:
    """One finding per (kind, pipeline, message with its numbers blanked): worth reducing."""
    seen, kept = set(), []
    for f in findings:
        key = (*f.verdict.signature, re.sub(r"[-+0-9.e]+", "#", f.verdict.message.splitlines()[0])[:120])
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def progress_bar(report: campaign.Report, fraction: float) -> None:
    filled = int(fraction * BAR_WIDTH)
    rate = report.programs / report.seconds if report.seconds else 0.0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {report.programs} programs, "
        f"{rate:.1f}/s, {len(report.findings)} findings"
    )
    sys.stderr.flush()


def replay(paths: list[str], pipelines: list[str], timeout: float) -> int:
    worker, status = Worker(timeout), 0
    try:
        for path in paths:
            name, data = read_input(path)
            for verdict in worker.judge(data.decode(errors="replace"), pipelines):
                where = f" in {verdict.pipeline}" if verdict.pipeline else ""
                print(f"{name}: {verdict.status} {verdict.kind}{where} {verdict.message}".rstrip())
                status |= verdict.status in ("finding", "invalid")
    finally:
        worker.stop()
    return status


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
