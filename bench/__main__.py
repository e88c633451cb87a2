"""CLI: python -m bench [--quick | --real-models] [--threads N] [--rows REGEX] [--repeat R] (bench/run.sh).

Everything runs in one process, so the machine limits, Versa and every peer see the same machine
state, thread settings and data. Thread counts are fixed through the environment before NumPy,
torch or Versa are imported (OpenBLAS and OpenMP read them once, at load time), then again through
each system's own knob (see bench/peers.py).
"""

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bash bench/run.sh",
        description="Benchmark Versa against torch, torch.compile, IREE, ONNX Runtime, OpenVINO and NumPy "
        "in one process; writes bench/RESULTS.md and bench/ratios.png (see bench/README.md).",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_true", help="five rows, R=5 (~20 s)")
    group.add_argument(
        "--real-models",
        action="store_true",
        help="only the real-model rows (transformers classes, random weights; bench/hf_models.py)",
    )
    parser.add_argument("--threads", type=int, default=None, help="threads per system (default: all cores)")
    parser.add_argument("--rows", metavar="REGEX", help="only rows whose name matches (re.search)")
    parser.add_argument("--repeat", type=int, default=None, help="timed rounds R (default 10, --quick 5)")
    parser.add_argument(
        "--peers",
        metavar="NAMES",
        help="only these peers beside Versa, comma-separated, any case (e.g. 'torch,onnx runtime,openvino')",
    )
    parser.add_argument(
        "--versa-pipeline",
        default="versa-optimize,lower-to-llvm",
        help="Versa's JitFunction pipeline (default: versa.compile's)",
    )
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="markdown report path")
    parser.add_argument(
        "--plot", type=Path, help="ratio plot path (default: bench/ratios.png, or beside --output)"
    )
    args = parser.parse_args(argv)
    if args.plot is None:  # a report written elsewhere keeps the committed plot as it is
        default = args.output.resolve() == HERE / "RESULTS.md"
        args.plot = HERE / "ratios.png" if default else args.output.with_suffix(".png")
    if args.repeat is None:
        args.repeat = 5 if args.quick else 10
    if args.repeat < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--repeat and --threads must be at least 1")
    if args.peers is not None:  # checked against the peers' names once they are imported
        args.peers = {name.strip().lower() for name in args.peers.split(",") if name.strip()}
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    threads = args.threads or cores
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VERSA_NUM_THREADS"):
        os.environ[var] = str(threads)
    # Versa's OpenMP workers sleep 1 ms after a region (versa.cpu.openmp.BLOCKTIME, what users get).
    # GNU OpenMP's (torch's) otherwise spin after every call and take the second core from the
    # next system; passive waiting treats every runtime alike.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    import torch

    from bench import machine, report, rows
    from bench.driver import Budget, measure_row
    from bench.peers import all_peers

    def log(line: str) -> None:
        print(line, flush=True)

    selected = rows.select(args.quick, args.rows, args.real_models)
    if not selected:
        print(f"no row matches --rows {args.rows!r}", file=sys.stderr)
        return 1
    peers, unusable = all_peers(args.versa_pipeline), {}
    if args.peers is not None:  # Versa stays: the table is relative to it
        unknown = args.peers - {p.name.lower() for p in peers}
        if unknown:
            names = ", ".join(p.name for p in peers[1:])
            print(f"unknown peer(s) {', '.join(sorted(unknown))}; the peers: {names}", file=sys.stderr)
            return 2
        peers = [p for p in peers if p.name == "Versa" or p.name.lower() in args.peers]
    command = "bash bench/run.sh" + "".join(f" {shlex.quote(a)}" for a in argv)
    started = time.perf_counter()
    torch.set_grad_enabled(False)
    limits = machine.measure(threads, args.quick)
    log(
        f"machine: {limits.cpu}, {threads} thread(s); triad {limits.triad_gbs:.1f} GB/s; "
        f"GEMM {limits.gemm_gflops:.1f} GFLOP/s ({limits.gemm_source})"
    )
    if limits.scaling_warning():
        log(f"warning: {limits.scaling_warning()}")
    for peer in peers:
        try:
            peer.setup(threads)
        except Exception as err:  # noqa: BLE001  (a missing peer is a table entry)
            from bench.driver import reason

            unusable[peer.name] = f"unusable here: {reason(err)}"
            log(f"{peer.name}: {unusable[peer.name]}")
    settle = 0.25 if threads > 1 else 0.0  # one thread: no spinning pool of ours to wait out
    budget = Budget(args.repeat, per_system_s=1.5 if args.quick else 5.0, long_s=3.0, settle_s=settle)
    results = []
    try:
        for i, row in enumerate(selected):
            log(f"[{i + 1}/{len(selected)}] {row.name} ...")
            results.append(measure_row(row, peers, unusable, budget, log))
    except KeyboardInterrupt:
        log("interrupted: writing the rows measured so far")
        command += "  (interrupted)"
    elapsed = time.perf_counter() - started
    if results:
        report.write_markdown(args.output, results, limits, command, args.repeat, elapsed)
        title = f"{command}  ·  {limits.cpu}, {threads} thread(s)"
        report.write_plot(args.plot, results, title)
        log(f"wrote {args.output} and {args.plot} ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
