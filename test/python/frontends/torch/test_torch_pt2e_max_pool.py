"""A PT2E-quantized stem (conv-bn-relu, max pool 3x3/2 padding 1, a conv, a pool-fed residual
add, a head), compiled whole with and without `rules/quantized_pool.py`: the rule makes the max
pool one of ui8 bytes (the dequantize → pool → · f32(1/s) → quantize chain gone), and the
outputs of the two compiles are equal bit for bit (the rule is exact, not within a tolerance).
The rule is also checked against torch's quantized execution through `pt2e_helpers`' one-step
tolerance (its reasons in `test_torch_pt2e.py`).
"""

import numpy as np
import pytest
import torch
from torch import nn
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.frontends.torch import api
from versa.passes.optimize import canonicalize
from versa.passes.optimize.pipeline import VersaOptimize
from versa.passes.optimize.rules import quantized_pool

pytest.importorskip("torchao")
from pt2e_helpers import assert_within_one_step, quantized  # noqa: E402  (needs torchao)

SHAPE = (2, 3, 30, 30)


class Stem(nn.Module):
    def __init__(self, c: int = 8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.fc = nn.Linear(c, 10)
        with torch.no_grad():
            self.stem[1].running_mean.uniform_(-0.5, 0.5)
            self.stem[1].running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = self.pool(self.stem(x))
        z = torch.relu(self.conv(y)) + y
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(z, 1), 1))


@pytest.fixture(scope="module", name="quantized_stem")
def _quantized_stem():
    torch.manual_seed(0)
    model = Stem().eval()
    return (*quantized(model, SHAPE), model)


def _pools(module) -> list[str]:
    return [line for line in str(module).splitlines() if '"versa.max_pool2d"' in line]


def test_stem_pool_runs_on_bytes(quantized_stem):
    converted, x, _ = quantized_stem
    module = api.import_torch(converted, (x,))
    compiler.run_passes(module, list(VersaOptimize().steps()))
    pools = _pools(module)
    assert len(pools) == 1 and "xui8>) -> tensor<" in pools[0], pools


def test_outputs_equal_with_and_without_the_rule(quantized_stem, monkeypatch):
    converted, x, _ = quantized_stem
    text = str(api.import_torch(converted, (x,)))
    pipeline = "versa-optimize,lower-to-llvm"

    def run() -> np.ndarray:
        module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
        return JitFunction(module, pipeline=pipeline, cache=False)(x.numpy())[0]

    with_rule = run()
    kept = [p for p in canonicalize.PATTERNS if p not in quantized_pool.PATTERNS]
    monkeypatch.setattr(canonicalize, "PATTERNS", kept)
    without_rule = run()
    assert with_rule.dtype == np.float32
    np.testing.assert_array_equal(with_rule, without_rule)


def test_within_one_step_of_torch(quantized_stem):
    converted, x, model = quantized_stem
    assert_within_one_step(converted, x, model.fc)
