"""Models for the `versa optimize` tests, as factories (`zoo:cnn`) and files they write."""

import io
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "torch"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # test/python: opaque_ops
import models  # noqa: E402
from opaque_ops import reverse  # noqa: E402


def cnn():
    """The factory form: (module, example inputs)."""
    return models.build("cnn", 1)


def resnet_basic():
    return models.build("resnet_basic", 1)


class Reverse(torch.nn.Module):
    """A layer whose op Versa can never take (a test-only custom op): left to PyTorch."""

    def forward(self, x):
        return reverse(x)  # OPAQUE_LINE


class OpaqueInTheMiddle(torch.nn.Module):
    """linear + relu, an op Versa cannot take, then tanh and a second linear: two partitions."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.flip = Reverse()
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.tanh(self.flip(torch.relu(self.fc1(x)))))


def opaque():
    """A factory whose model Versa cannot import whole: it runs partitioned."""
    torch.manual_seed(0)
    return OpaqueInTheMiddle(), (torch.randn(4, 16),)


def only_opaque():
    """A factory whose model is nothing but an op Versa cannot take: nothing to compile."""
    return Reverse(), (torch.randn(4, 16),)


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
