"""A PT2E-quantized NCHW ResNet-style block (conv-bn-relu stem, maxpool, a residual block of
two conv-bn, the add, a global mean and a linear head) reaches `versa-int8-kernels` in NHWC:
versa-layout converts qconv2d as it does conv2d and moves the transposes through quantize,
requantize and dequantize, so the compiled convs run on vpdpbusd (VNNI), never vpmulld.

Targets are named: `x86-64-v4` with `avx512vnni` added (the instruction check compiles only) and
the host for the numerics. Tolerance, as `frontends/torch/test_torch_pt2e.py` states it: every
quantized activation within one step of torch's quantized execution, at most 2% of them off;
the float logits within s_in * max_j sum_k |W_jk| (+ 5%) of torch's.
"""

import dataclasses
import re

import pytest
import torch
from torch import nn
from versa import compiler, targets
from versa.frontends.torch import api
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize
from versa.translate import emit_assembly

pytest.importorskip("torchao")
from pt2e_helpers import assert_within_one_step, quantized  # noqa: E402  (needs torchao)

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
SHAPE = (1, 3, 32, 32)


class ResNetBlock(nn.Module):
    def __init__(self, c: int = 16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.fc = nn.Linear(c, 10)
        with torch.no_grad():  # statistics that are no identity
            for bn in (self.stem[1], self.b1, self.b2):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = self.pool(self.stem(x))
        z = torch.relu(self.b1(self.c1(y)))
        z = torch.relu(self.b2(self.c2(z)) + y)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(z, 1), 1))


@pytest.fixture(scope="module", name="quantized")
def _quantized_block() -> tuple[torch.fx.GraphModule, torch.Tensor, nn.Module]:
    torch.manual_seed(0)
    model = ResNetBlock().eval()
    return (*quantized(model, SHAPE), model)


def _lines(module, op: str) -> list[str]:
    return [line for line in str(module).splitlines() if f'"versa.{op}"' in line]


def test_every_qconv_is_nhwc_and_the_transposes_stay_at_the_ends(quantized):
    converted, x, _ = quantized
    module = api.import_torch(converted, (x,))
    compiler.run_passes(module, list(VersaOptimize(target=V4).steps()))
    convs = _lines(module, "qconv2d")
    assert len(convs) == 3 and all('layout = "NHWC"' in line for line in convs)
    transposes = _lines(module, "transpose")  # after the image, before the flatten
    assert len(transposes) == 2 and not any("xui8>" in line for line in transposes), transposes
    assert all("axis = 3" in line for line in _lines(module, "requantize") if "tensor<16xf32>" in line)


def _instructions(module_text: str, target: targets.Target) -> dict[str, int]:
    steps = [
        *VersaOptimize(target=target).steps(),
        *LowerToLLVM(target=target, threads=1, standalone=True).steps(),
    ]
    assembly = emit_assembly(compiler.compile_text(module_text, steps).operation, target)
    return {name: len(re.findall(rf"\b{name}\w*\s", assembly)) for name in ("vpdpbusd", "vpmulld")}


def test_nchw_model_convs_run_on_vpdpbusd(quantized):
    """Through versa-layout the convs use vpdpbusd; the same model on a target that prefers
    NCHW convs (so no pass moves them) keeps the portable path's vpmulld: what the move buys."""
    converted, x, _ = quantized
    text = str(api.import_torch(converted, (x,)))
    found = _instructions(text, VNNI)
    assert found["vpdpbusd"] >= 3 and found["vpmulld"] == 0, found
    held = _instructions(text, dataclasses.replace(VNNI, conv_layout="NCHW"))
    assert held["vpmulld"] > 0, held


def test_results_within_one_step_of_torch(quantized):
    converted, x, model = quantized
    assert_within_one_step(converted, x, model.fc)
