"""CLI: .venv/bin/python -m bench.fusion [--repeat R] [--rows REGEX] [--threads N]: what fusion buys.

The main suite (`python -m bench`) puts Versa next to other systems; this script puts Versa next
to itself: each row's program through three pipelines (`fusion_rows.CONFIGS`: the scalar O0
baseline, optimised without versa-fuse, optimised with it) and torch eager, in one process, with
the suite's check-then-interleave timing (`bench/driver.py`), plus the bytes of intermediate
buffers each compiled function allocates, which is what fusion is meant to remove. The table
goes to stdout and into bench/RESULTS.md between the `report.FUSION_BEGIN`/`FUSION_END` markers
(the rest of the file is never touched; the suite's rewrite keeps the section).
"""

import argparse
import os
import re
import shlex
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=".venv/bin/python -m bench.fusion",
        description="Time each row at O0, unfused and fused (versa-fuse) and in torch eager; "
        "writes a section of bench/RESULTS.md (see bench/README.md).",
    )
    parser.add_argument("--repeat", type=int, default=10, help="timed rounds R (default 10)")
    parser.add_argument("--rows", metavar="REGEX", help="only rows whose name matches (re.search)")
    parser.add_argument("--threads", type=int, default=None, help="threads per system (default: all cores)")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="markdown file to update")
    args = parser.parse_args(argv)
    if args.repeat < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--repeat and --threads must be at least 1")
    return args


def fix_threads(threads: int) -> None:
    """As bench/__main__.py: before NumPy, torch or Versa load, and torch's idle workers asleep."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VERSA_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def fix_threads_for(requested: int | None) -> int:
    """`fix_threads` for `requested` threads, or every core this process may use; the count.
    (bench.machine.available_cores imports torch, which must come after.)"""
    threads = requested or (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    fix_threads(threads)
    return threads


def main(argv: list[str]) -> int:
    args = parse(argv)
    threads = fix_threads_for(args.threads)

    import torch

    from bench import fusion_report, fusion_rows
    from bench.driver import Budget, measure_row
    from bench.peers import TorchEager

    selected = [r for r in fusion_rows.ROWS if not args.rows or re.search(args.rows, r.name)]
    if not selected:
        print(f"no row matches --rows {args.rows!r}", file=sys.stderr)
        return 1
    command = ".venv/bin/python -m bench.fusion" + "".join(f" {shlex.quote(a)}" for a in argv)
    torch.set_grad_enabled(False)
    load = os.getloadavg()
    configs = [fusion_rows.VersaConfig(c) for c in fusion_rows.CONFIGS]
    peers = [*configs, TorchEager()]
    for peer in peers:
        peer.setup(threads)
    # A call over 2 s on its checking run (O0 conv, scalar loops) is that configuration's only
    # sample; the others get at most 5 s of timed calls per row.
    budget = Budget(args.repeat, per_system_s=5.0, long_s=2.0)
    started, measured = time.perf_counter(), []
    try:
        for i, row in enumerate(selected):
            print(f"[{i + 1}/{len(selected)}] {row.name} ...", flush=True)
            for config in configs:
                config.buffers = None  # a row that fails to build must not show the last row's
            result = measure_row(row, peers, {}, budget, lambda line: print(line, flush=True))
            measured.append(fusion_report.Measured(result, {c.name: c.buffers for c in configs}))
    except KeyboardInterrupt:
        print("interrupted: writing the rows measured so far", flush=True)
        command += "  (interrupted)"
    if not measured:
        return 1
    elapsed = time.perf_counter() - started
    section = fusion_report.section(measured, command, threads, load, args.repeat, elapsed)
    print(section)
    fusion_report.write_section(args.output, section)
    print(f"updated the fusion section of {args.output} ({elapsed:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
