"""The per-layer profile (versa.optimizer.profile): kernels timed by a profiling compile, mapped
back to torch module paths and versa IR lines, FLOPs from the source ops."""

import numpy as np
import pytest
import torch
from versa import compiler, environment
from versa.context import make_context
from versa.frontends.torch.api import import_torch
from versa.optimizer import profile as profiler
from versa.optimizer.profile import profile_module
from versa.options import CompileOptions

ROUNDS = 5


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.head = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(16 * 8 * 8, 10))

    def forward(self, x):
        return torch.softmax(self.head(torch.relu(self.stem(x))), -1)


@pytest.fixture(scope="module")
def profile():
    torch.manual_seed(0)
    x = torch.randn(1, 8, 8, 8)
    module = import_torch(Net().eval(), [x])
    return profile_module(module, CompileOptions.create(), [x.numpy()], rounds=ROUNDS)


def test_every_kernel_ran_once_per_call_and_the_parts_add_up(profile):
    assert profile.layers
    assert all(layer.calls == 1 for layer in profile.layers)
    assert profile.attributed_ms == pytest.approx(sum(layer.ms for layer in profile.layers))
    # The marks sit inside the call: their sum cannot exceed the median call (a little slack
    # for the median of the call against the mean of the parts).
    assert 0 < profile.attributed_ms <= 1.5 * profile.instrumented_ms
    assert sum(layer.percent for layer in profile.layers) == pytest.approx(100)


def test_layers_are_named_by_module_path_with_the_flops_of_their_op(profile):
    by_path = {}
    for layer in profile.layers:
        for source in layer.sources:
            by_path.setdefault(source, []).append(layer)
    conv = [layer for layer in by_path["stem"] if layer.flops]
    assert len(conv) == 1 and "conv2d" in conv[0].family
    assert conv[0].flops == 2 * (16 * 8 * 8) * (8 * 3 * 3)
    assert conv[0].rate_unit == "GFLOP/s" and conv[0].rate > 0
    linear = [layer for layer in by_path["head.1"] if layer.flops]
    assert len(linear) == 1 and linear[0].flops == 2 * 1024 * 10
    softmax = [layer for layer in profile.layers if "softmax" in layer.family]
    assert softmax and softmax[0].rate_unit == "GB/s"


def test_textual_ir_is_located_by_line():
    text = """
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  %1 = "versa.tanh"(%0) : (tensor<64x48xf32>) -> tensor<64x48xf32>
  return %1 : tensor<64x48xf32>
}
"""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((64, 32), np.float32), rng.standard_normal((32, 48), np.float32)]
    profile = profile_module(module, CompileOptions.create(opt_level=2), inputs, rounds=ROUNDS)
    sources = {s for layer in profile.layers for s in layer.sources}
    assert "line 3:8" in sources
    flops = [layer.flops for layer in profile.layers if layer.flops]
    assert flops == [2 * 64 * 48 * 32]


def test_a_profile_from_the_compile_cache_has_its_kernels_and_counters(tmp_path, monkeypatch):
    """The profiling compile goes through the compile cache: a hit (no engine, no module) keeps
    the kernel table with the code and reads the counters from the loaded library."""
    monkeypatch.setenv(environment.CACHE_DIR, str(tmp_path))
    made = []

    class Recorded(profiler.JitFunction):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append((self.from_cache, len(self.kernels)))

    monkeypatch.setattr(profiler, "JitFunction", Recorded)
    torch.manual_seed(0)
    x = torch.randn(1, 8, 8, 8)
    module = import_torch(Net().eval(), [x])
    first = profile_module(module, CompileOptions.create(), [x.numpy()], rounds=ROUNDS)
    second = profile_module(module, CompileOptions.create(), [x.numpy()], rounds=ROUNDS)
    (plain, instrumented), (plain_hit, instrumented_hit) = made[0:2], made[2:4]
    assert plain == (False, 0) and instrumented[0] is False and instrumented[1] > 0  # compiled,
    assert plain_hit == (True, 0) and instrumented_hit == (True, instrumented[1])  # then loaded
    assert [(a.sources, a.family, a.flops) for a in first.layers] == [
        (b.sources, b.family, b.flops) for b in second.layers
    ]
    assert all(layer.calls == 1 for layer in second.layers)
    assert 0 < second.attributed_ms <= 1.5 * second.instrumented_ms


def test_quantized_contractions_count_their_integer_multiply_adds():
    """qconv2d and qmatmul are contractions too: 2 operations per multiply-add, as their float
    forms (the tags alone: no compile)."""
    x, w, out = "tensor<1x8x8x4xui8>", "tensor<3x3x4x16xi8>", "tensor<1x8x8x16xi32>"
    a, b, product = "tensor<64x32xui8>", "tensor<32x48xi8>", "tensor<64x48xi32>"
    zeros = "tensor<ui8>, tensor<i8>"
    text = f"""
func.func @main(%x: {x}, %w: {w}, %a: {a}, %b: {b}, %zx: tensor<ui8>, %zw: tensor<i8>)
    -> ({out}, {product}) {{
  %0 = "versa.qconv2d"(%x, %w, %zx, %zw) {{layout = "NHWC", padding = array<i64: 1, 1, 1, 1>}}
      : ({x}, {w}, {zeros}) -> {out}
  %1 = "versa.qmatmul"(%a, %b, %zx, %zw) : ({a}, {b}, {zeros}) -> {product}
  return %0, %1 : {out}, {product}
}}
"""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    flops = {op.op: op.flops for op in profiler.tag_ops(module).values()}
    assert flops == {"qconv2d": 2 * (8 * 8 * 16) * (3 * 3 * 4), "qmatmul": 2 * 64 * 48 * 32}
