"""Mobile and efficient conv net blocks, whole, through versa.import_torch and lower-to-llvm at
one and two threads, against torch in float64.

Each block mixes the conv families in one function, the way a model does: depthwise convs
(padded, strided, 3x3 to 7x7) with batch-norm and activation epilogues, 1x1 convs, grouped
convs with narrow groups, squeeze-excite (a mean, two 1x1 convs, a broadcast multiply),
LayerNorm over channels and an MLP between NHWC permutes, residual adds, and a classifier
head (mean + linear). Strategies for these ops share one transform script per function, so a
strategy that matches more than its own op (a fill of another op, found by scope) breaks a
neighbour: the MobileNetV2 head once failed to compile on one thread this way.

Tolerance: random weights and inputs of order one; the reference is the same module in
float64, and a float32 chain of a few convs of K ≤ 640 products stays within 1e-4 relative
to the output's scale.
"""

import copy
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import versa
from torch import nn
from versa.cpu.runtime import JitFunction

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.mobile_nets import (  # noqa: E402
    ConvNeXtBlock,
    InvertedResidual,
    MBConv,
    ResNeXtBottleneck,
    conv_bn,
)

PIPELINES = [
    "versa-optimize,lower-to-llvm{opt-level=3 threads=1}",
    "versa-optimize,lower-to-llvm{opt-level=3 threads=2}",
]


class MobileNetTail(nn.Module):
    """Stem, two inverted residuals, a 1x1 head to 640 and a 1000-way classifier."""

    def __init__(self):
        super().__init__()
        blocks = [conv_bn(3, 16, 3, 2), InvertedResidual(16, 24, 2), InvertedResidual(24, 24, 1)]
        self.features = nn.Sequential(*blocks, conv_bn(24, 640))
        self.fc = nn.Linear(640, 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).mean((2, 3)))


NETS = {
    "mobilenet_v2_tail": (MobileNetTail, (1, 3, 32, 32)),
    "mbconv_se": (lambda: nn.Sequential(MBConv(16, 24, 5, 2), MBConv(24, 24, 3, 1)), (1, 16, 28, 28)),
    "convnext": (lambda: nn.Sequential(ConvNeXtBlock(32), ConvNeXtBlock(32)), (2, 32, 14, 14)),
    "resnext": (ResNeXtBottleneck, (1, 64, 14, 14)),
}


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("net", NETS)
def test_mobile_net(net: str, pipeline: str) -> None:
    torch.manual_seed(0)
    build, shape = NETS[net]
    model = build().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        want = copy.deepcopy(model).double()(x.double()).numpy()
    jit = JitFunction(versa.import_torch(model, (x,)), pipeline=pipeline)
    (got,) = jit(x.numpy())
    scale = float(np.sqrt(np.mean(want * want)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale)


@pytest.mark.parametrize("net", NETS)
def test_mobile_net_stays_nhwc(net: str) -> None:
    """versa-layout puts every conv in NHWC and cancels the transposes between layers (also
    through squeeze-excite's mean and ConvNeXt's own permutes): what is left is one transpose
    after the input and at most one before the output."""
    torch.manual_seed(0)
    build, shape = NETS[net]
    module = versa.import_torch(build().eval(), (torch.randn(*shape),))
    text = str(versa.compile_text(str(module), "versa-layout,versa-canonicalize"))
    assert text.count('"versa.transpose"') <= 2
    convs = [line for line in text.splitlines() if '"versa.conv2d"' in line]
    assert convs and all('layout = "NHWC"' in line for line in convs)
