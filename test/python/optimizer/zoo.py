"""Models for the `versa optimize` tests, as factories (`zoo:cnn`) and files they write."""

import io
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "torch"))
import models  # noqa: E402


def cnn():
    """The factory form: (module, example inputs)."""
    return models.build("cnn", 1)


def resnet_basic():
    return models.build("resnet_basic", 1)


def write_onnx(path: Path, name: str = "cnn") -> Path:
    model, inputs = models.build(name, 1)
    buffer = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated (dynamo=True needs onnxscript)
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buffer, dynamo=False, opset_version=17)
    path.write_bytes(buffer.getvalue())
    return path


def write_pt2(path: Path, name: str = "mlp") -> Path:
    model, inputs = models.build(name, 1)
    torch.export.save(torch.export.export(model, inputs, strict=False), str(path))
    return path


MLIR = """func.func @main(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %1 = "versa.relu"(%0) : (tensor<32x16xf32>) -> tensor<32x16xf32>
  return %1 : tensor<32x16xf32>
}
"""
