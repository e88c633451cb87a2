"""ONNX models quantized by ONNX Runtime (quantize_static in QDQ and QOperator formats,
quantize_dynamic) import whole to Versa's integer ops and agree with ORT running them.

Tolerances, and why:
- Static models (QDQ and QOperator, u8 and i8 activations, per tensor and per channel): the
  output is a dequantized 8-bit value, compared in steps of its scale. Versa's integer
  contractions sum exactly and requantize once, as ORT's QLinearConv / QGemm do; a result can
  differ by one step where the requantization multiplier (f32(sx·sw)/sy, rounded in another
  order) or a float Add/MaxPool between the contractions puts a value on the other side of a
  rounding midpoint. Checked: every output within one step, at most 2% of them off (measured
  on these models: 0).
- Dynamic models (DynamicQuantizeLinear + MatMulInteger / ConvInteger, float between layers):
  the quantization parameters are computed with ORT's arithmetic and the integer sums are
  exact, so only float rounding of the epilogue differs: rtol 1e-5 plus 1e-5 of the output's
  magnitude (measured: bit-identical).
"""

import io
import warnings

import numpy as np
import onnx
import pytest
import torch
import versa
from onnx import TensorProto, helper, numpy_helper
from torch import nn
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError

ort = pytest.importorskip("onnxruntime")
from onnxruntime.quantization import (  # noqa: E402
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_dynamic,
    quantize_static,
)

PIPELINE = "versa-canonicalize,versa-fuse,lower-to-llvm"


def _saturating_peer() -> bool:
    """Whether ONNX Runtime's u8 x s8 kernels (MLAS) are inexact on this CPU: on x86 without
    VNNI they multiply with `vpmaddubsw`, whose i16 pair sums saturate. On a Zen 3 (AVX2) their
    outputs here were up to 16 steps off, while Versa matched the graph's own semantics (ORT
    with its fusions off) bit for bit. The real CPU counts, not VERSA_HOST_TARGET: ORT runs
    its own code."""
    import llvmlite.binding as llvm

    features = {name for name, on in llvm.get_host_cpu_features().items() if on}
    x86 = llvm.get_process_triple().startswith("x86_64")
    return x86 and not features & {"avx512vnni", "avxvnni"}


SATURATING = _saturating_peer()


class ConvNet(nn.Module):
    """conv-relu, a conv with a residual add and relu, a max pool, a linear head."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        y = torch.relu(self.c1(x))
        z = torch.relu(self.c2(y) + y)
        return self.fc(nn.functional.max_pool2d(z, 2).flatten(1))


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


MODELS = {"convnet": (ConvNet, (2, 3, 8, 8)), "mlp": (_mlp, (4, 32))}


class _Reader(CalibrationDataReader):
    def __init__(self, shape):
        g = np.random.default_rng(0)
        self.batches = iter([{"x": g.standard_normal(shape).astype(np.float32)} for _ in range(4)])

    def get_next(self):
        return next(self.batches, None)


def _float_model(name: str, path) -> None:
    make, shape = MODELS[name]
    torch.manual_seed(0)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated
        warnings.simplefilter("ignore")
        torch.onnx.export(
            make().eval(), (torch.randn(shape),), path, dynamo=False, opset_version=17, input_names=["x"]
        )


def _quantized(tmp_path, name: str, kind: str, per_channel: bool = False, activation=None) -> bytes:
    source, out = tmp_path / "float.onnx", tmp_path / "quantized.onnx"
    _float_model(name, source)
    if kind == "dynamic":
        quantize_dynamic(source, out, weight_type=activation or QuantType.QInt8, per_channel=per_channel)
    else:
        quantize_static(
            source,
            out,
            _Reader(MODELS[name][1]),
            quant_format=getattr(QuantFormat, kind),
            activation_type=activation,
            weight_type=QuantType.QInt8,
            per_channel=per_channel,
        )
    return out.read_bytes()


def _run(data: bytes, name: str, unfused: bool = False) -> tuple[np.ndarray, np.ndarray, str]:
    """(Versa's output, ORT's, the versa IR). `unfused`: ORT runs the graph as written
    (DequantizeLinear, float ops, QuantizeLinear), not its fused integer kernels."""
    module = versa.import_onnx(data)
    text = str(module)  # before the compile lowers it in place
    x = np.random.default_rng(1).standard_normal(MODELS[name][1]).astype(np.float32)
    options = ort.SessionOptions()
    if unfused:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    return JitFunction(module, pipeline=PIPELINE)(x)[0], session.run(None, {"x": x})[0], text


def _integer_contractions(text: str, name: str) -> None:
    """Every conv / matmul is an integer one: the model compiles whole to qconv2d / qmatmul."""
    counts = {op: text.count(f'"versa.{op}"') for op in ("qconv2d", "qmatmul", "conv2d", "matmul")}
    convs, matmuls = (2, 1) if name == "convnet" else (0, 3)
    assert counts == {"qconv2d": convs, "qmatmul": matmuls, "conv2d": 0, "matmul": 0}


def _output_scale(data: bytes) -> float:
    proto = onnx.load_from_string(data)
    last = next(n for n in reversed(proto.graph.node) if n.op_type == "DequantizeLinear")
    return float(numpy_helper.to_array(next(t for t in proto.graph.initializer if t.name == last.input[1])))


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("kind", ["QDQ", "QOperator"])
@pytest.mark.parametrize(
    ("activation", "per_channel"),
    [(QuantType.QUInt8, False), (QuantType.QUInt8, True), (QuantType.QInt8, False), (QuantType.QInt8, True)],
    ids=["u8", "u8-per-channel", "i8", "i8-per-channel"],
)
def test_static_quantized_model_matches_onnxruntime(tmp_path, name, kind, activation, per_channel):
    if SATURATING and kind == "QOperator" and activation == QuantType.QUInt8:
        pytest.skip("ONNX Runtime's u8 x s8 QLinear kernels saturate on this CPU (no VNNI): no exact peer")
    data = _quantized(tmp_path, name, kind, per_channel, activation)
    got, want, text = _run(data, name, unfused=SATURATING)
    _integer_contractions(text, name)
    assert '"versa.requantize"' in text  # the quantized outputs are requantized integers
    steps = np.rint((got - want) / _output_scale(data))
    assert np.abs(steps).max() <= 1
    assert np.count_nonzero(steps) <= 0.02 * steps.size


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("weights", [QuantType.QInt8, QuantType.QUInt8], ids=["i8", "u8"])
def test_dynamic_quantized_model_matches_onnxruntime(tmp_path, name, weights):
    if SATURATING and weights == QuantType.QInt8:
        pytest.skip("ONNX Runtime's u8 x s8 MatMulInteger / ConvInteger saturate on this CPU (no VNNI)")
    data = _quantized(tmp_path, name, "dynamic", activation=weights)
    ops = {n.op_type for n in onnx.load_from_string(data).graph.node}
    assert "DynamicQuantizeLinear" in ops and "MatMulInteger" in ops
    assert ("ConvInteger" in ops) == (name == "convnet")
    got, want, text = _run(data, name)
    _integer_contractions(text, name)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def _graph(node: onnx.NodeProto, initializers: list, out_type: int) -> bytes:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    y = helper.make_tensor_value_info("y", out_type, None)
    graph = helper.make_graph([node], "g", [x], [y], [numpy_helper.from_array(a, n) for n, a in initializers])
    buffer = io.BytesIO()
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("node", "initializers", "out_type", "message"),
    [
        (
            helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q16"),
            [("s", np.float32(0.1)), ("z", np.int16(0))],
            TensorProto.INT16,
            "quantization to INT16",
        ),
        (
            helper.make_node("QuantizeLinear", ["x", "x", "z"], ["y"], name="computed"),
            [("z", np.uint8(0))],
            TensorProto.UINT8,
            "computed at run time",
        ),
    ],
)
def test_unsupported_quantization_is_a_compile_error(node, initializers, out_type, message):
    with pytest.raises(CompileError, match=message):
        versa.import_onnx(_graph(node, initializers, out_type))
