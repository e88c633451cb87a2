"""ONNX → versa (torch-mlir's ONNX importer + the torch rules) and the versa-import tool."""

import io
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "examples" / "torch"))
import models  # noqa: E402
import versa  # noqa: E402
from versa.cpu.runtime import JitFunction  # noqa: E402

TOOL = [sys.executable, "-m", "versa.tools.versa_import"]


def export_onnx(model: torch.nn.Module, inputs) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated (dynamo=True needs onnxscript)
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["mlp", "cnn", "resnet_basic", "gpt2_block", "unet_block"])
def test_exported_models_match_eager(name: str) -> None:
    model, inputs = models.build(name, 2)
    module = versa.import_onnx(export_onnx(model, inputs))
    out = JitFunction(module, pipeline="versa-canonicalize,versa-fuse,lower-to-llvm")(
        *[x.numpy() for x in inputs]
    )
    with torch.no_grad():
        ref = model(*inputs).numpy()
    np.testing.assert_allclose(out[0], ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


def hand_built_graph() -> onnx.ModelProto:
    """Gemm + Relu + Softmax + ReduceMean built with onnx.helper."""
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "w")
    bias = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Softmax", ["r"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])], [weight, bias],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_onnx_helper_graph() -> None:
    proto = hand_built_graph()
    x = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    out = JitFunction(versa.import_onnx(proto))(x)[0]
    w = numpy_helper.to_array(proto.graph.initializer[0])
    b = numpy_helper.to_array(proto.graph.initializer[1])
    h = np.maximum(x @ w + b, 0)
    want = np.exp(h - h.max(-1, keepdims=True))
    np.testing.assert_allclose(out, want / want.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_versa_import_tool_writes_versa_ir(tmp_path: Path) -> None:
    model, inputs = models.build("cnn", 1)
    source = tmp_path / "cnn.onnx"
    source.write_bytes(export_onnx(model, inputs))
    target = tmp_path / "cnn.mlir"
    done = subprocess.run([*TOOL, str(source), "-o", str(target)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = target.read_text()
    assert '"versa.conv2d"' in text and '"versa.max_pool2d"' in text and "torch." not in text
    run = subprocess.run(
        [sys.executable, "-m", "versa.tools.versa_run", str(target), "--random", "--check"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_versa_import_coverage(tmp_path: Path) -> None:
    source = tmp_path / "g.onnx"
    source.write_bytes(hand_built_graph().SerializeToString())
    done = subprocess.run([*TOOL, str(source), "--coverage"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "torch.aten.softmax.int" in done.stdout and "ops convert to versa" in done.stdout


@pytest.mark.parametrize("data", [b"\x08\x07garbage\x00\xff", b""])
def test_versa_import_rejects_bad_input(tmp_path: Path, data: bytes) -> None:
    source = tmp_path / "bad.onnx"
    source.write_bytes(data)
    done = subprocess.run([*TOOL, str(source)], capture_output=True, text=True)
    assert done.returncode == 1 and "error:" in done.stderr and "Traceback" not in done.stderr
