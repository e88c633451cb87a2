"""The systems of bench/int8.py, each built (quantized, exported, compiled) for one row: Versa
FP32 and INT8 for every target asked for (`--target`, `--both-isas`: the host, and x86-64-v3,
AVX2 code, on an AVX-512 machine), ONNX Runtime FP32 and INT8 (`quantize_static` QDQ),
OpenVINO FP32 and INT8 on ORT's QDQ model (with an AVX2 target on an AVX-512 host, OpenVINO
again, held to AVX2 in a child process: `int8_isa_peer.py`); and the check of an output against
the float module.
"""

import io
import tempfile
import time
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

PEERS = ("ORT FP32", "ORT INT8", "OpenVINO FP32", "OpenVINO INT8 (QDQ)")
AVX2_PEERS = ("OpenVINO FP32 AVX2", "OpenVINO INT8 (QDQ) AVX2")  # their ONNX models, in a child


def avx2_target(target: str) -> bool:
    """Whether `target` is x86 code of AVX2 and no AVX-512 while this CPU has AVX-512: the
    peers can then be held to AVX2 too (`int8_isa_peer.py`) for that target's rows."""
    from versa import targets

    if target == "host" or not targets.host().has("avx512f"):
        return False
    t = targets.resolve(target)
    return t.triple.startswith("x86_64") and t.has("avx2") and not t.has("avx512f")


def versa_systems(target: str) -> tuple[str, str]:
    """The FP32 and INT8 system names of Versa compiled for `target` ("host": no suffix)."""
    suffix = "" if target == "host" else f" {target}"
    return f"Versa FP32{suffix}", f"Versa INT8{suffix}"


def system_names(targets: list[str]) -> tuple[str, ...]:
    """Every system of a row, in the table's order: Versa per target, then the peers (the AVX2
    ones where a target is AVX2 code on this AVX-512 CPU)."""
    held = AVX2_PEERS if any(map(avx2_target, targets)) else ()
    return (*(name for t in targets for name in versa_systems(t)), *PEERS, *held)


@dataclass
class Row:
    label: str
    times: dict[str, float | str] = field(default_factory=dict)  # median seconds, or why not
    checks: dict[str, str] = field(default_factory=dict)  # system → "max|Δ| · rel · top-1"
    compiles: dict[str, float] = field(default_factory=dict)
    above_avx2: dict[str, str] = field(default_factory=dict)  # a capped peer's layers left above AVX2


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


def systems(
    case, args: tuple, calibration: list[tuple], threads: int, row: Row, targets: list[str]
) -> dict[str, Callable]:
    """Each system's call, built (compiled) here; a system that fails is a row cell saying why.
    Versa compiles the float module and its PT2E form (quantized once) for each of `targets`
    (`versa.targets` names; "host" is this CPU)."""
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

    def versa_runner(m, target: str) -> Callable:
        """A whole-graph compile, or a failure: where the graph does not compile whole,
        versa.compile runs it partitioned, eager ops between the pieces, with only a warning
        (which `_quiet` would swallow): other numerics and other times than the table's."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                compiled = versa.compile(m, list(args), target=None if target == "host" else target)
                compiled(*args)  # the compile may wait for the first call
        eager = [str(w.message) for w in caught if "ran eagerly" in str(w.message)]
        if eager:
            raise RuntimeError(f"partitioned ({eager[0]})")
        return lambda: compiled(*args)

    quantized: list = []  # the PT2E module, made once for every target

    def versa_int8(target: str) -> Callable:
        if not quantized:
            quantized.append(_quiet(pt2e, module, args, calibration))
        return versa_runner(quantized[0], target)

    for target in targets:
        fp32, int8 = versa_systems(target)
        build(fp32, lambda target=target: versa_runner(module, target))
        build(int8, lambda target=target: versa_int8(target))
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
        if any(map(avx2_target, targets)):
            from bench.int8_isa_peer import IsaPeer

            def held(kind: str, name: str) -> Callable:
                if kind not in models:
                    raise RuntimeError("no ONNX model (ORT failed)")
                peer = IsaPeer(models[kind], list(arrays), threads, folder, name, kind == "float")
                if peer.above:
                    row.above_avx2[name] = peer.above
                return peer

            for kind, name in zip(("float", "int8"), AVX2_PEERS, strict=True):
                build(name, lambda kind=kind, name=name: held(kind, name))
    return runners
