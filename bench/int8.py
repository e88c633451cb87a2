"""CLI: .venv/bin/python -m bench.int8 [--models resnet50,mobilenetv2,bert] [--batch 1 [8]]
[--repeat R] [--threads N] [--calibration N] [--output PATH] [--note TEXT]: INT8 inference (issue 47).

Each model is built as the real-model rows build it (`hf_models.case`: `transformers` classes,
random weights, batch norms calibrated on the row's input; nothing downloaded), then quantized
twice from the same float module, each calibrated on the same `--calibration` random batches:
with PT2E (torchao's `X86InductorQuantizer`, its default config: what Versa INT8 compiles) and
with ONNX Runtime's `quantize_static` (QDQ, per-channel int8 weights, uint8 activations, on the
TorchScript ONNX export of the float module). Systems: Versa FP32 and INT8 (`versa.compile`),
ONNX Runtime FP32 and INT8, OpenVINO FP32 (`bench/peers.py`) and OpenVINO INT8 on ORT's QDQ
model (NNCF, OpenVINO's own quantizer, is not installed; its CPU plugin runs a QDQ ONNX model's
quantized ops in int8). Each output is checked first against the float module run eagerly: max
|Δ|, relative L2 error and, for classifiers, top-1 agreement. Timing as the suite's: every
system called in turn in each of R interleaved rounds after two warm-up calls, medians. The
table goes to stdout and into bench/RESULTS.md between `report.INT8_BEGIN`/`INT8_END`.
"""

import argparse
import io
import os
import shlex
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = {
    "resnet50": "HF ResNet-50 224²",
    "mobilenetv2": "HF MobileNetV2 224²",
    "bert": "HF BERT-base seq 128",
}
SYSTEMS = ("Versa FP32", "Versa INT8", "ORT FP32", "ORT INT8", "OpenVINO FP32", "OpenVINO INT8 (QDQ)")


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


@dataclass
class Row:
    label: str
    times: dict[str, float | str] = field(default_factory=dict)  # median seconds, or why not
    checks: dict[str, str] = field(default_factory=dict)  # system → "max|Δ| · rel · top-1"
    compiles: dict[str, float] = field(default_factory=dict)


def _quiet(fn: Callable, *args, **kwargs):
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def pt2e(module, args: tuple, calibration: list[tuple]):
    """torchao's PT2E flow with the X86 Inductor quantizer's default config."""
    import torch
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer,
        get_default_x86_inductor_quantization_config,
    )

    exported = torch.export.export(module, args).module()
    quantizer = X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(exported, quantizer)
    for batch in calibration:
        prepared(*batch)
    return convert_pt2e(prepared)


def ort_qdq(module, args: tuple, calibration: list[tuple], folder: str) -> tuple[bytes, bytes]:
    """(the float ONNX model, its quantize_static QDQ per-channel form) as bytes."""
    import torch
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    from bench.case import Fn

    float_path, int8_path = f"{folder}/float.onnx", f"{folder}/int8.onnx"
    torch.onnx.export(Fn(module).eval(), args, float_path, dynamo=False, opset_version=17)

    class Reader(CalibrationDataReader):
        def __init__(self, names):
            self.feeds = iter([dict(zip(names, (a.numpy() for a in b), strict=True)) for b in calibration])

        def get_next(self):
            return next(self.feeds, None)

    import onnx

    names = [i.name for i in onnx.load(float_path).graph.input]
    quantize_static(
        float_path,
        int8_path,
        Reader(names),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
    )
    return Path(float_path).read_bytes(), Path(int8_path).read_bytes()


def check(out, want, classifier: bool) -> str:
    import numpy as np

    got, ref = np.asarray(out, np.float64), np.asarray(want, np.float64)
    if got.shape != ref.shape:
        return f"shape {got.shape} ≠ {ref.shape}"
    delta = float(np.abs(got - ref).max())
    rel = float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))
    text = f"{delta:.3g} · {rel:.2%}"
    if classifier:
        text += f" · {float((got.argmax(-1) == ref.argmax(-1)).mean()):.0%}"
    return text


def systems(case, args: tuple, calibration: list[tuple], threads: int, row: Row) -> dict[str, Callable]:
    """Each system's call, built (compiled) here; a system that fails is a row cell saying why."""
    import versa

    from bench.peers import OpenVino, ort_session

    module, arrays = case.module, case.arrays[: case.torch_args]
    runners: dict[str, Callable] = {}

    def build(name: str, make: Callable[[], Callable]) -> None:
        start = time.perf_counter()
        try:
            runners[name] = make()
            row.compiles[name] = time.perf_counter() - start
        except Exception as err:  # a system that fails shows up in the table
            row.times[name] = f"failed: {type(err).__name__}: {str(err).splitlines()[0][:80]}"
        print(f"  {name}: {row.times.get(name, f'ready in {time.perf_counter() - start:.1f} s')}", flush=True)

    def versa_runner(m) -> Callable:
        """A whole-graph compile, or a failure: where the graph does not compile whole,
        versa.compile runs it partitioned, eager ops between the pieces, with only a warning
        (which `_quiet` would swallow): other numerics and other times than the table's."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                compiled = versa.compile(m, list(args))
                compiled(*args)  # the compile may wait for the first call
        eager = [str(w.message) for w in caught if "ran eagerly" in str(w.message)]
        if eager:
            raise RuntimeError(f"partitioned ({eager[0]})")
        return lambda: compiled(*args)

    build("Versa FP32", lambda: versa_runner(module))
    build("Versa INT8", lambda: versa_runner(_quiet(pt2e, module, args, calibration)))
    with tempfile.TemporaryDirectory() as folder:
        models: dict[str, bytes] = {}

        def onnx_models() -> None:
            models["float"], models["int8"] = _quiet(ort_qdq, module, args, calibration, folder)

        def ort(kind: str) -> Callable:
            if not models:
                onnx_models()
            session = ort_session(models[kind], threads)
            feeds = dict(zip([i.name for i in session.get_inputs()], arrays, strict=True))
            return lambda: session.run(None, feeds)[0]

        build("ORT FP32", lambda: ort("float"))
        build("ORT INT8", lambda: ort("int8"))
        openvino = OpenVino()
        openvino.setup(threads)
        build("OpenVINO FP32", lambda: (lambda call: lambda: call()[0])(openvino.prepare(case)))

        def openvino_int8() -> Callable:
            if "int8" not in models:
                raise RuntimeError("no QDQ model (ORT INT8 failed)")
            model = openvino.core.read_model(models["int8"], b"")
            config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads}
            request = openvino.core.compile_model(model, "CPU", config).create_infer_request()
            return lambda: request.infer(list(arrays), share_inputs=True, share_outputs=False).to_tuple()[0]

        build("OpenVINO INT8 (QDQ)", openvino_int8)
    return runners


def measure(name: str, batch: int, args_: argparse.Namespace, threads: int) -> Row:
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
    runners = systems(case, args, calibration, threads, row)
    classifier = name != "bert"
    for system, call in list(runners.items()):
        try:
            out = call()
            row.checks[system] = check(
                out.numpy() if isinstance(out, torch.Tensor) else out, want, classifier
            )
            call()
        except Exception as err:
            row.times[system] = f"failed: {type(err).__name__}: {str(err).splitlines()[0][:80]}"
            del runners[system]
    samples: dict[str, list[float]] = {s: [] for s in runners}
    for _ in range(args_.repeat):  # interleaved rounds
        for system, call in runners.items():
            start = time.perf_counter()
            call()
            samples[system].append(time.perf_counter() - start)
    for system, times in samples.items():
        row.times[system] = statistics.median(times)
    print(f"  {row.times}", flush=True)
    return row


def main(argv: list[str]) -> int:
    args = parse(argv)
    from bench.fusion import fix_threads_for

    threads = fix_threads_for(args.threads)
    import torch

    from bench import int8_report

    torch.set_grad_enabled(False)
    shown = ["…" if i and argv[i - 1] == "--note" else a for i, a in enumerate(argv)]  # the note is printed
    command = ".venv/bin/python -m bench.int8" + "".join(f" {shlex.quote(a)}" for a in shown)
    load, started, rows = os.getloadavg(), time.perf_counter(), []
    try:
        for name in args.models:
            for batch in args.batch:
                rows.append(measure(name, batch, args, threads))
    except KeyboardInterrupt:
        print("interrupted: writing the rows measured so far", flush=True)
        command += "  (interrupted)"
    if not rows:
        return 1
    elapsed = time.perf_counter() - started
    section = int8_report.section(
        rows, command, threads, load, args.repeat, args.calibration, elapsed, args.note
    )
    print(section)
    int8_report.write(args.output, section)
    print(f"updated the INT8 section of {args.output} ({elapsed:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
