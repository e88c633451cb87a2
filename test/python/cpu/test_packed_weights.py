"""Constant f32 matmul weights packed at compile time (versa-pack-weights) against NumPy and
PyTorch: the packed contraction is in the module (the pass applied, its panel width the
target's), and the compiled result matches.

Targets are named, never the host's: `x86-64-v3` (AVX2, 16-float panels: 2 vectors of 8) and
`x86-64-v4` (AVX-512, 32- or 64-float panels); a host that cannot run one skips its runs.
Tolerances: inputs in [-1, 1), f32 sums of K products in another order than NumPy's float64
reference: 2e-5·sqrt(K) absolute (K = 3072: 1.1e-3), rtol 1e-5; PyTorch's own f32 result
(its order differs too) 1e-4 absolute, GELU's erf included.
"""

import numpy as np
import pytest
import torch
from conftest import Compiled
from versa import compiler, targets
from versa.context import make_context
from versa.frontends.torch.api import import_torch
from versa.options import CompileOptions
from versa.passes.cpu.pack_weights import VersaPackWeights
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.cpu.strategies.packed_matmul import MARK

TARGETS = {"v3": targets.resolve("x86-64-v3"), "v4": targets.resolve("x86-64-v4")}
RNG = np.random.default_rng(44)


def _runnable(target: targets.Target) -> None:
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")


def _steps(target: targets.Target, threads: int) -> list:
    return list(LowerToLLVM(target=target, threads=threads).steps())


def _packed_shapes(module, target: targets.Target, threads: int) -> list[str]:
    """The packed constants' types after versa-pack-weights (the pipeline up to it)."""
    steps = _steps(target, threads)
    cut = max(i for i, s in enumerate(steps) if isinstance(s, VersaPackWeights)) + 1  # the static one
    with module.context:
        compiler.run_passes(module, steps[:cut])
    text = str(module)
    assert "linalg.matmul" not in text, "a constant-weight matmul was left unpacked"
    assert text.count(MARK) >= 1
    return [line.split(":")[-1].strip() for line in text.splitlines() if "arith.constant dense" in line]


def _parse(text: str):
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def _weights_text(m: int, k: int, n: int, weights: np.ndarray) -> str:
    w = f"tensor<{k}x{n}xf32>"
    hexed = weights.astype(np.float32).tobytes().hex().upper()
    return f"""func.func @main(%a: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = "versa.constant"() {{value = dense<"0x{hexed}"> : {w}}} : () -> {w}
  %0 = "versa.matmul"(%a, %w) : (tensor<{m}x{k}xf32>, {w}) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "m,k,n",
    [
        (128, 768, 768),  # BERT's attention projections
        (49, 1024, 2048),  # a 1x1 conv at 7x7 as a matmul
        (1, 768, 768),  # one token
        (197, 768, 768),  # ViT's tokens: M ragged against every row tile
        (37, 333, 1000),  # K odd, N no multiple of any panel (the last padded with zeros)
    ],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_matmul_against_numpy(m: int, k: int, n: int, target: str, threads: int) -> None:
    weights = RNG.uniform(-1, 1, (k, n)).astype(np.float32)
    text = _weights_text(m, k, n, weights)
    packed = _packed_shapes(_parse(text), TARGETS[target], threads)
    lanes = TARGETS[target].lanes(32)
    panels = [s for s in packed if s.endswith("xf32>") and f"x{k}x" in s]
    assert panels, packed
    width = int(panels[0].split("x")[-2])
    assert width % lanes == 0 and -(-n // width) == int(panels[0].split("<")[1].split("x")[0])
    _runnable(TARGETS[target])
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float32)
    (got,) = Compiled(text, _steps(TARGETS[target], threads)).jit(a)
    np.testing.assert_allclose(got, a.astype(np.float64) @ weights, rtol=1e-5, atol=2e-5 * k**0.5)


def test_the_unpacked_weights_are_dropped() -> None:
    """Only the packed copy of the weights stays in the module (not both)."""
    weights = RNG.uniform(-1, 1, (256, 96)).astype(np.float32)
    packed = _packed_shapes(_parse(_weights_text(16, 256, 96, weights)), TARGETS["v3"], 1)
    assert packed == ["tensor<6x256x16xf32>"]


def test_small_weights_keep_the_plain_matmul() -> None:
    """A B that fits in L1 (64x64: 16 KB) is read in place: no packed copy."""
    weights = RNG.uniform(-1, 1, (64, 64)).astype(np.float32)
    module = _parse(_weights_text(16, 64, 64, weights))
    steps = _steps(TARGETS["v3"], 1)
    cut = max(i for i, s in enumerate(steps) if isinstance(s, VersaPackWeights)) + 1  # the static one
    with module.context:
        compiler.run_passes(module, steps[:cut])
    assert MARK not in str(module) and "linalg.matmul" in str(module)


class _Linear(torch.nn.Module):
    def __init__(self, k: int, n: int, gelu: bool):
        super().__init__()
        self.linear, self.gelu = torch.nn.Linear(k, n), gelu

    def forward(self, x):
        y = self.linear(x)  # nn.Linear keeps its weight as [N, K]: the import transposes it
        return torch.nn.functional.gelu(y) if self.gelu else y


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "shape,n,gelu",
    [
        ((2, 64, 384), 1536, True),  # batched [B, M, K] linear with bias + GELU: a fused epilogue
        ((1, 128, 768), 768, False),
        ((3, 5, 200), 100, True),  # N ragged against the panels, epilogue unfused
    ],
)
def test_torch_linear(shape: tuple, n: int, gelu: bool, target: str) -> None:
    torch.manual_seed(sum(shape) + n)
    model = _Linear(shape[-1], n, gelu).eval()
    x = torch.rand(shape) * 2 - 1
    module = import_torch(model, [x])
    _packed_shapes(module, TARGETS[target], 2)
    _runnable(TARGETS[target])
    options = CompileOptions.create(TARGETS[target], threads=2, runnable=True)
    from versa.cpu.runtime import JitFunction

    function = JitFunction(import_torch(model, [x]), pipeline=options.passes(), cache=False)
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(function(x.numpy())[0], want, rtol=1e-5, atol=1e-4)


def test_tuning_space_has_the_prepack_knob() -> None:
    """Pre-packing is a knob of the matmul's search space, the analytic choice first; at the
    point that turns it off, versa-pack-weights leaves the matmul to per-call packing."""
    from versa.mlir import ir
    from versa.passes.cpu.strategies import search_space, select, strategy_at

    text = """func.func @f(%a: tensor<128x768xf32>) -> tensor<128x768xf32> {
      %w = arith.constant dense<0.5> : tensor<768x768xf32>
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<128x768xf32>
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
      %0 = linalg.matmul ins(%a, %w : tensor<128x768xf32>, tensor<768x768xf32>)
        outs(%f : tensor<128x768xf32>) -> tensor<128x768xf32>
      return %0 : tensor<128x768xf32>
    }"""
    with make_context():
        module = ir.Module.parse(text)
        op = next(
            o for o in module.body.operations[0].regions[0].blocks[0].operations if o.name == "linalg.matmul"
        )
        strategy = select(op.operation, TARGETS["v3"], 2)
        knob = next(k for k in search_space(strategy, TARGETS["v3"]).knobs if k.name == "prepack")
        assert knob.values == (True, False) and strategy.prepack
        assert not strategy_at(strategy, {"prepack": False}, TARGETS["v3"]).prepack


@pytest.mark.parametrize("n,gelu", [(768, True), (1000, False)])  # N ragged: a slice of the panels
def test_dynamic_rows_share_one_packed_weight(n: int, gelu: bool) -> None:
    """A linear over dynamic rows: versa-pack-weights (dynamic-rows, before versa-static-tiles)
    packs its constant weight once, as the strategy of the full 256-row tile would, and every
    tile of the cascade (256 rows down to 1, and the padded rest) reads those panels: the packed
    contraction is in the module after static tiles are cut, the unpacked weight is gone, and
    sizes on both sides of each tile boundary are right."""
    from torch.export import Dim
    from versa import compile as versa_compile

    torch.manual_seed(n)
    model = _Linear(384, n, gelu).eval()
    example, dims = (torch.rand(1, 64, 384),), ({1: Dim("m", max=512)},)
    module = import_torch(model, example, dynamic_shapes=dims)
    steps = _steps(TARGETS["v4"], 2)
    cut = next(i for i, s in enumerate(steps) if type(s).__name__ == "VersaStaticTiles") + 1
    with module.context:
        compiler.run_passes(module, steps[:cut])
    text = str(module)
    assert MARK in text and "linalg.matmul" not in text, "the dynamic-M matmul was not pre-packed"
    assert "tensor<384x" not in text, "the unpacked weight is kept beside the packed one"
    compiled = versa_compile(model, example, dynamic_shapes=dims)
    for rows in (1, 7, 8, 9, 197, 256, 300):
        x = torch.rand(1, rows, 384) * 2 - 1
        with torch.no_grad():
            want = model(x).numpy()
        np.testing.assert_allclose(np.asarray(compiled(x)), want, rtol=1e-5, atol=1e-4)
