"""CLI: .venv/bin/python -m bench.int8 [--models resnet50,mobilenetv2,bert] [--batch 1 [8]]
[--repeat R] [--threads N] [--calibration N] [--target NAME | --both-isas] [--output PATH]
[--note TEXT]: INT8 inference (issue 47).

Each model is built as the real-model rows build it (`hf_models.case`: `transformers` classes,
random weights, batch norms calibrated on the row's input; nothing downloaded), then quantized
twice from the same float module, each calibrated on the same `--calibration` random batches:
with PT2E (torchao's `X86InductorQuantizer`, its default config: what Versa INT8 compiles) and
with ONNX Runtime's `quantize_static` (QDQ, per-channel int8 weights, uint8 activations, on the
TorchScript ONNX export of the float module). Systems (bench/int8_systems.py): Versa FP32 and
INT8 (`versa.compile`), ONNX Runtime FP32 and INT8, OpenVINO FP32 (`bench/peers.py`) and OpenVINO
INT8 on ORT's QDQ model (NNCF, OpenVINO's own quantizer, is not installed; its CPU plugin runs a
QDQ ONNX model's quantized ops in int8). `--target` names the CPU Versa compiles for (an ISA
level this CPU runs); `--both-isas`, on an AVX-512 host, compiles Versa FP32 and INT8 for the
host and for x86-64-v3 (AVX2 code) as systems of the same rounds, the peers timed once (as
bench/run.sh's option). Each output is checked first against the float module run eagerly: max
|Δ|, relative L2 error and, for classifiers, top-1 agreement. Timing as the suite's driver: R
interleaved rounds after two warm-up calls, the order rotated each round, a 0.25 s pause before
each system's turn with threads (the last system's workers stop spinning) and untimed calls for
20 ms before a call shorter than 50 ms, medians. With `--both-isas` (or an AVX2 `--target`) on
an AVX-512 host, OpenVINO runs a second time held to AVX2 (`ONEDNN_MAX_CPU_ISA`, in a child
process: bench/int8_isa_peer.py) and the AVX2 rows' ratios are against it; ONNX Runtime has no
such switch. The tables go to stdout and into bench/RESULTS.md between
`report.INT8_BEGIN`/`INT8_END`.
"""

import argparse
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.int8_systems import Row, check, systems  # noqa: F401  (Row: the report's rows)

HERE = Path(__file__).resolve().parent
MODELS = {
    "resnet50": "HF ResNet-50 224²",
    "mobilenetv2": "HF MobileNetV2 224²",
    "bert": "HF BERT-base seq 128",
}
SETTLE_S, REWARM_BELOW_S, REWARM_S = 0.25, 0.05, 0.02  # as bench/driver.py's Budget


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=".venv/bin/python -m bench.int8",
        description="Time Versa INT8 (PT2E) against Versa FP32, ONNX Runtime and OpenVINO; "
        "writes a section of bench/RESULTS.md.",
    )
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--batch", type=int, nargs="+", default=[1], help="batch sizes (default 1)")
    parser.add_argument("--repeat", type=int, default=10, help="timed rounds R (default 10)")
    parser.add_argument("--threads", type=int, default=None, help="threads per system (default: all cores)")
    parser.add_argument("--calibration", type=int, default=4, help="random calibration batches (default 4)")
    isa = parser.add_mutually_exclusive_group()
    isa.add_argument("--target", default="host", help="the CPU Versa compiles for (default: host)")
    isa.add_argument(
        "--both-isas",
        action="store_true",
        help="on an AVX-512 host: Versa for the host and for x86-64-v3 in the same rounds",
    )
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md", help="markdown file to update")
    parser.add_argument("--note", default="", help="a paragraph for the section (e.g. the machine was busy)")
    args = parser.parse_args(argv)
    args.models = [m.strip().lower() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or not args.models:
        parser.error(f"unknown model(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(MODELS)}")
    if args.repeat < 1 or args.calibration < 1 or min(args.batch) < 1:
        parser.error("--repeat, --calibration and --batch must be at least 1")
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")
    return args


def measure(name: str, batch: int, args_: argparse.Namespace, threads: int, targets: list[str]) -> Row:
    import numpy as np
    import torch

    from bench import hf_models

    model = next(m for m in hf_models.MODELS if m.label == MODELS[name])
    row = Row(f"{model.label} batch {batch}")
    print(f"{row.label} ...", flush=True)
    case = hf_models.case(model, batch)
    args = tuple(torch.from_numpy(a) for a in case.arrays[: case.torch_args])
    rng = np.random.default_rng(1)
    calibration = [
        tuple(torch.from_numpy(a) for a in model.inputs(rng, batch)) for _ in range(args_.calibration)
    ]
    want = case.module(*args).numpy()
    runners = systems(case, args, calibration, threads, row, targets)
    classifier, estimates = name != "bert", {}
    for system, call in list(runners.items()):
        try:
            out = call()
            row.checks[system] = check(
                out.numpy() if isinstance(out, torch.Tensor) else out, want, classifier
            )
            estimates[system] = _timed(call, False, False)
        except Exception as err:
            row.times[system] = f"failed: {type(err).__name__}: {str(err).splitlines()[0][:80]}"
            del runners[system]
    samples: dict[str, list[float]] = {s: [] for s in runners}
    names = list(runners)
    for rnd in range(args_.repeat):  # interleaved rounds, the order rotated
        for system in names[rnd % len(names) :] + names[: rnd % len(names)]:
            rewarm = estimates[system] < REWARM_BELOW_S
            samples[system].append(_timed(runners[system], threads > 1 and len(names) > 1, rewarm))
    for system, times in samples.items():
        row.times[system] = statistics.median(times)
    print(f"  {row.times}", flush=True)
    return row


def _timed(call: Callable, settle: bool, rewarm: bool) -> float:
    """One timed call after the pause and untimed calls that bench/driver.py makes."""
    if settle:
        time.sleep(SETTLE_S)
    if rewarm:  # they wake the system's thread pool, and the core from the pause's idle
        until = time.perf_counter() + REWARM_S
        call()
        while time.perf_counter() < until:
            call()
    start = time.perf_counter()
    call()
    elapsed = time.perf_counter() - start
    return getattr(call, "seconds", elapsed)  # a peer in a child process times its own call


def _targets(args: argparse.Namespace) -> list[str]:
    """The Versa targets' names (bench/__main__.py's choice: the host, x86-64-v3 too with
    --both-isas on an AVX-512 host); a target this CPU cannot run is an argparse-style exit."""
    from versa.targets import TargetError

    from bench.__main__ import _targets as choose

    try:
        return [name for name, _ in choose(args.target, args.both_isas, lambda m: print(m, flush=True))]
    except TargetError as err:
        print(f"--target: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str]) -> int:
    args = parse(argv)
    from bench.fusion import fix_threads_for

    threads = fix_threads_for(args.threads)
    targets = _targets(args)
    import torch

    from bench import int8_report

    torch.set_grad_enabled(False)
    shown = ["…" if i and argv[i - 1] == "--note" else a for i, a in enumerate(argv)]  # the note is printed
    command = ".venv/bin/python -m bench.int8" + "".join(f" {shlex.quote(a)}" for a in shown)
    load, started, rows = os.getloadavg(), time.perf_counter(), []
    try:
        for name in args.models:
            for batch in args.batch:
                rows.append(measure(name, batch, args, threads, targets))
    except KeyboardInterrupt:
        print("interrupted: writing the rows measured so far", flush=True)
        command += "  (interrupted)"
    if not rows:
        return 1
    elapsed = time.perf_counter() - started
    section = int8_report.section(
        rows, command, threads, load, args.repeat, args.calibration, elapsed, args.note, tuple(targets)
    )
    print(section)
    int8_report.write(args.output, section)
    print(f"updated the INT8 section of {args.output} ({elapsed:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
