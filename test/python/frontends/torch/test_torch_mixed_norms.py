"""Norm layers on half (f16/bf16) activations with f32 parameters, as torch.autocast leaves them
(rules/norm.py): LayerNorm and BatchNorm keep their weights and running statistics in f32 while
the conv or linear before them runs in half. Both were refused (LayerNorm then fell to
torch-mlir's decomposition in f16, whose keepdim sums failed versa-codegen and sent the whole
graph to eager; BatchNorm ran eagerly, splitting the graph). Now they compile with nothing
eager and compute as PyTorch's CPU kernels: in f32, rounded once to the half type.

Tolerances: a norm layer alone is within one rounding of its half type (|got - want| <= eps ·
|want| + 1e-4, eps = 2^-10 for f16, 2^-7 for bf16: the two sides compute the same f32 value up
to f32 rounding, which can flip a half rounding). Blocks with a conv or a linear in half also
differ in the contraction's summation order: atol 1e-2 (f16) / 3e-2 (bf16) on outputs of O(1).
"""

import pytest
import torch
import versa
from torch import nn
from torch_helpers import versa_warnings

HALVES = [torch.float16, torch.bfloat16]
BLOCK_TOL = {torch.float16: 1e-2, torch.bfloat16: 3e-2}


def _randomised(model: nn.Module) -> nn.Module:
    """Weights in [-2, 2], running means in [-0.5, 0.5], variances in [0.3, 2] (not 1 and 0)."""
    torch.manual_seed(0)
    for p in model.parameters():
        p.data.uniform_(-2, 2)
    for name, b in model.named_buffers():
        if name.endswith("running_mean"):
            b.uniform_(-0.5, 0.5)
        elif name.endswith("running_var"):
            b.uniform_(0.3, 2.0)
    return model.eval()


NORMS = {
    "batch_norm2d": (lambda: nn.BatchNorm2d(8), (2, 8, 5, 5)),
    "batch_norm1d": (lambda: nn.BatchNorm1d(8), (4, 8, 10)),
    "batch_norm1d_rows": (lambda: nn.BatchNorm1d(8), (4, 8)),
    "batch_norm2d_no_affine": (lambda: nn.BatchNorm2d(8, affine=False), (2, 8, 5, 5)),
    "layer_norm": (lambda: nn.LayerNorm(96), (2, 37, 96)),
    "layer_norm_2d_no_bias": (lambda: nn.LayerNorm((4, 6), bias=False), (3, 4, 6)),
    "group_norm": (lambda: nn.GroupNorm(4, 8), (2, 8, 5, 5)),
    "instance_norm_affine": (lambda: nn.InstanceNorm2d(8, affine=True), (2, 8, 5, 5)),
}


@pytest.mark.parametrize("dtype", HALVES, ids=str)
@pytest.mark.parametrize("name", NORMS)
def test_norm_of_half_input_with_f32_parameters(name: str, dtype: torch.dtype) -> None:
    make, shape = NORMS[name]
    model = _randomised(make())
    x = (torch.randn(shape, generator=torch.Generator().manual_seed(1)) * 3 + 1).to(dtype)
    with versa_warnings() as messages, torch.no_grad():
        got = versa.compile(model, (x,))(x)
        want = model(x)
    assert messages == []
    assert got.dtype == dtype
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(got.float(), want.float(), rtol=eps, atol=1e-4)


class GatingUnit(nn.Module):
    """gMLP's spatial gating unit under f16 autocast: linear (f16) → LayerNorm (f16 input, f32
    weight) → 1x1 Conv1d across the sequence."""

    def __init__(self, dtype: torch.dtype):
        super().__init__()
        self.dtype = dtype
        self.fc, self.norm, self.proj = nn.Linear(48, 96), nn.LayerNorm(96), nn.Conv1d(37, 37, 1)

    def forward(self, x):
        with torch.autocast("cpu", dtype=self.dtype):
            return self.proj(self.norm(self.fc(x)))


class ConvBatchNorm(nn.Module):
    """A ConvMixer block under autocast: conv (half) → BatchNorm2d (f32 statistics) → gelu."""

    def __init__(self, dtype: torch.dtype):
        super().__init__()
        self.dtype = dtype
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)

    def forward(self, x):
        with torch.autocast("cpu", dtype=self.dtype):
            return nn.functional.gelu(self.bn(self.conv(x)))


BLOCKS = {"gating_unit": (GatingUnit, (2, 37, 48)), "conv_batch_norm": (ConvBatchNorm, (2, 3, 10, 10))}


@pytest.mark.parametrize("dtype", HALVES, ids=str)
@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("mode", ["versa.compile", "torch.compile"])
def test_autocast_block_compiles_whole(mode: str, block: str, dtype: torch.dtype) -> None:
    make, shape = BLOCKS[block]
    torch.manual_seed(0)
    model = make(dtype).eval()
    if block == "conv_batch_norm":
        model.bn.running_mean.uniform_(-0.2, 0.2)
        model.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(shape)
    torch._dynamo.reset()
    with versa_warnings() as messages, torch.no_grad():
        fn = versa.compile(model, (x,)) if mode == "versa.compile" else torch.compile(model, backend="versa")
        got = fn(x)
        want = model(x)
    assert messages == []
    assert got.dtype == dtype
    torch.testing.assert_close(got.float(), want.float(), rtol=0, atol=BLOCK_TOL[dtype])


def test_autocast_layer_norm_is_one_versa_op() -> None:
    """The mixed LayerNorm is versa.layer_norm in f32 between two casts, not the decomposition."""
    x = torch.randn(2, 37, 48)
    text = str(versa.import_torch(GatingUnit(torch.float16).eval(), (x,)))
    assert "torch." not in text and "linalg." not in text
    assert '"versa.layer_norm"' in text
    assert "(tensor<2x37x96xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<2x37x96xf32>" in text
