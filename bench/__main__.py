"""CLI: python -m bench [--quick | --real-models] [--threads N] [--rows REGEX] [--repeat R]
[--target NAME | --both-isas] [--isolate | --no-isolate] (bench/run.sh).

Everything runs in one process, so the machine limits, Versa and every peer see the same machine
state, thread settings and data; with `--isolate` (the default of `--real-models`) each row runs
in a fresh spawned process of its own instead (bench/isolate.py), which gives its memory back
when the row is done. Thread counts are fixed through the environment before NumPy,
torch or Versa are imported (OpenBLAS and OpenMP read them once, at load time), then again through
each system's own knob (see bench/peers.py).

`--target` picks the CPU Versa's code is for (an ISA level this CPU runs: x86-64-v3 code runs on
an AVX-512 machine), so one machine measures both of the ISAs users have; `--both-isas` times
Versa for the host and for x86-64-v3 as two systems of the same rounds (the peers are timed
once) and writes a section per target.
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
    isa = parser.add_mutually_exclusive_group()
    isa.add_argument(
        "--target",
        default="host",
        help="the CPU target Versa compiles for: host (default) or an ISA level this CPU runs "
        "(x86-64-v3, x86-64-v4); the report's section for it",
    )
    isa.add_argument(
        "--both-isas",
        action="store_true",
        help="on an AVX-512 host: Versa for the host and for x86-64-v3 in the same rounds, a section each",
    )
    parser.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure each row in a fresh process of its own, which sets up the peers itself and exits "
        "(its memory goes back; a row that kills it is a table entry); default: on with --real-models",
    )
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="markdown report path")
    parser.add_argument(
        "--plot", type=Path, help="ratio plot path (default: bench/ratios.png, or beside --output)"
    )
    args = parser.parse_args(argv)
    if args.plot is None:  # a report written elsewhere keeps the committed plot as it is
        default = args.output.resolve() == HERE / "RESULTS.md"
        args.plot = HERE / "ratios.png" if default else args.output.with_suffix(".png")
    if args.isolate is None:
        args.isolate = args.real_models
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
    # The compile column is a cold compile: not code from the compile cache of an earlier run.
    os.environ.setdefault("VERSA_CACHE_DIR", "off")

    import torch

    from bench import machine, plot, report, rows
    from bench.driver import Budget, measure_row
    from bench.peers import all_peers, versa_name

    def log(line: str) -> None:
        print(line, flush=True)

    selected = rows.select(args.quick, args.rows, args.real_models)
    if not selected:
        print(f"no row matches --rows {args.rows!r}", file=sys.stderr)
        return 1
    try:
        targets = _targets(args.target, args.both_isas, log)
    except ValueError as err:  # versa.targets.TargetError: unknown, or not runnable here
        print(f"--target: {err}", file=sys.stderr)
        return 2
    peers, unusable = all_peers(args.versa_pipeline, [name for name, _ in targets]), {}
    if args.peers is not None:  # Versa stays: the table is relative to it
        unknown = args.peers - {p.name.lower() for p in peers}
        if unknown:
            names = ", ".join(p.name for p in peers if not p.name.startswith("Versa"))
            print(f"unknown peer(s) {', '.join(sorted(unknown))}; the peers: {names}", file=sys.stderr)
            return 2
        peers = [p for p in peers if p.name.startswith("Versa") or p.name.lower() in args.peers]
    sections = [
        report.Section(
            name, versa_name(name, i == 0), _describe(t), t.lanes(32), plot.plot_path(args.plot, name)
        )
        for i, (name, t) in enumerate(targets)
    ]
    command = "bash bench/run.sh" + "".join(f" {shlex.quote(a)}" for a in argv)
    started = time.perf_counter()
    torch.set_grad_enabled(False)  # also what lets inductor freeze (bench/peers.py TorchCompile)
    limits = machine.measure(threads, args.quick)
    clock = f"clock {limits.clock_ghz:.2f} GHz" if limits.clock_ghz else f"no clock ({limits.clock_note})"
    peaks = ", ".join(
        f"{s.target} {limits.fma_peak_gflops(s.lanes):.0f}" for s in sections if limits.clock_ghz
    )
    log(
        f"machine: {limits.cpu}, {threads} thread(s); triad {limits.triad_gbs:.1f} GB/s; "
        f"GEMM {limits.gemm_gflops:.1f} GFLOP/s ({limits.gemm_source}); {clock}"
        + (f"; FMA peak GFLOP/s: {peaks}" if peaks else "")
    )
    for s in sections:
        log(f"Versa target {s.target}: {s.description}")
    if limits.scaling_warning():
        log(f"warning: {limits.scaling_warning()}")
    for peer in [] if args.isolate else peers:  # isolated rows set up their peers in their process
        try:
            peer.setup(threads)
        except Exception as err:  # noqa: BLE001  (a missing peer is a table entry)
            from bench.driver import reason

            unusable[peer.name] = f"unusable here: {reason(err)}"
            log(f"{peer.name}: {unusable[peer.name]}")
    settle = 0.25 if threads > 1 else 0.0  # one thread: no spinning pool of ours to wait out
    budget = Budget(args.repeat, per_system_s=1.5 if args.quick else 5.0, long_s=3.0, settle_s=settle)
    if args.isolate:
        from bench.isolate import Isolated

        names = [p.name for p in peers]
        isolated = Isolated(names, threads, budget, args.versa_pipeline, [t for t, _ in targets], log)
    results = []
    try:
        for i, row in enumerate(selected):
            log(f"[{i + 1}/{len(selected)}] {row.name} ...")
            if args.isolate:
                results.append(isolated.measure(row))
            else:
                results.append(measure_row(row, peers, unusable, budget, log))
    except KeyboardInterrupt:
        log("interrupted: writing the rows measured so far")
        command += "  (interrupted)"
    elapsed = time.perf_counter() - started
    if args.isolate:  # the largest of the row processes, as the kernel accounted it
        import resource

        largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        log(f"largest row process: {largest / 1e9:.2f} GB resident at its peak")
    if results:
        run = report.RunInfo.now(command, args.repeat, elapsed)
        report.write_markdown(args.output, results, limits, run, sections)
        for s in sections:
            title = (
                f"{command}  ·  {limits.cpu}, {threads} thread(s)  ·  Versa for {s.target}: {s.description}"
            )
            plot.write_plot(s.plot, results, title, s.system)
        plots = ", ".join(str(s.plot) for s in sections)
        log(f"wrote {args.output} and {plots} ({elapsed:.0f} s)")
    return 0


def _targets(name: str, both: bool, log) -> list:
    """[(section name, versa.targets.Target)]: `name`, and x86-64-v3 with `both` on a host whose
    vectors are wider (AVX-512); an alias of the host ("cpu", "x86-64") is "host". Raises
    TargetError (a ValueError) for a name that is no CPU target or one this CPU cannot run."""
    from versa import targets as vt

    target = vt.resolve(name, "cpu")
    if not target.is_host:
        raise vt.TargetError(f"this CPU ({vt.host().isa}) cannot run {name} code")
    chosen = [("host" if target == vt.host() else name, target)]
    if both:
        v3 = vt.resolve("x86-64-v3") if vt.host().triple.startswith("x86_64") else None
        if v3 is not None and v3.is_host and vt.host().lanes(32) > v3.lanes(32):
            chosen.append(("x86-64-v3", v3))
        else:
            log(f"--both-isas: this CPU's widest ISA is {vt.host().isa}; measuring the host only")
    return chosen


def _describe(t) -> str:
    """The CPU and ISA of a target for the report: 'emeraldrapids, ISA level x86-64-v4; AVX-512, ...'."""
    cpu = f"{t.cpu}, " if t.cpu != t.isa else ""
    ext = "AVX-512, " if t.has("avx512f") else "AVX2, " if t.has("avx2") else ""
    return f"{cpu}ISA level {t.isa}; {ext}{t.vector_bits}-bit vectors, {t.lanes(32)} f32 lanes"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
