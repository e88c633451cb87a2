"""Matmuls whose M is not a multiple of the register tile's rows (M % mr != 0) at several M,
K and N: the matmul strategy splits off the last M % mr rows (matmul_rest.py) and tiles them
on their own, inside the threads over columns or batches, on AVX2 and, where this CPU runs
it, AVX-512 code; with weights as arguments, as constants (pre-packed panels) and with a
bias + GELU epilogue (the epilogue strategy, which peels instead).

Inputs are small integers stored as floats: every partial sum is exact in f32, so a plain
matmul must equal NumPy's float64 product (atol 1e-6 * K). The epilogue is checked against
the reference interpreter under its tolerance.
"""

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, tolerance
from versa.context import make_context
from versa.cpu.runtime import find_function
from versa.passes.cpu.strategies.matmul import MatmulStrategy
from versa.targets import resolve

PIPELINES = {
    "v3-1": "lower-to-llvm{target=x86-64-v3 threads=1}",
    "v3-2": "lower-to-llvm{target=x86-64-v3 threads=2}",
}

# (m, k, n): rows 1 to 7 left over on AVX2 (mr = 4) and AVX-512 (mr = 8); N whole and ragged
CASES = [
    (197, 256, 256),  # ViT's tokens: 49 x 4 + 1
    (49, 512, 128),  # ResNet's 7x7 stage: 12 x 4 + 1, K one cache block
    (193, 96, 200),  # N ragged: the rest's last column tile masked
    (198, 300, 64),  # 2 rows left, K % 4 = 0, narrow N
    (5, 64, 300),  # one tile and one row
    (203, 67, 131),  # K odd: step-1 k registers; 3 rows left
]


def _ints(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(np.float32)


def _matmul(m: int, k: int, n: int) -> str:
    a, b, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    return f"""func.func @main(%a: {a}, %b: {b}) -> {c} {{
  %0 = "versa.matmul"(%a, %b) : ({a}, {b}) -> {c}
  return %0 : {c}
}}"""


@pytest.mark.parametrize("pipeline", PIPELINES.values(), ids=PIPELINES.keys())
@pytest.mark.parametrize("m,k,n", CASES)
def test_ragged_rows(m: int, k: int, n: int, pipeline: str) -> None:
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
    (got,) = Compiled(_matmul(m, k, n), pipeline).jit(a, b)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=0, atol=1e-6 * k)


@pytest.mark.parametrize("m,k,n", [(197, 256, 256), (49, 512, 128), (193, 96, 200)])
def test_ragged_rows_split(m: int, k: int, n: int) -> None:
    """The strategy splits off exactly M % mr rows on each target (mr its row tile): the main
    part is whole row tiles (a test that fails if the split is silently dropped)."""
    a, b, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    text = f"""func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    op = next(o for o in find_function(module, None).regions[0].blocks[0] if o.name == "linalg.matmul")
    split = []
    for target in ("x86-64-v3", "x86-64-v4"):
        strategy = MatmulStrategy.for_op(op, resolve(target), 1)
        mr = strategy.register_tile[0]
        assert (strategy.rest[0] if strategy.rest else 0) == m % mr, (target, strategy)
        assert strategy.extent(0) % mr == 0  # the main part: whole row tiles
        split.append(bool(strategy.rest))
    assert split[0]  # AVX2's 4-row tiles leave rows in every case here (AVX-512 takes 7 x 7)


@pytest.mark.parametrize("pipeline", PIPELINES.values(), ids=PIPELINES.keys())
@pytest.mark.parametrize("m,k,n", [(197, 256, 256), (49, 512, 96)])
def test_ragged_rows_constant_weights(m: int, k: int, n: int, pipeline: str) -> None:
    """A constant B is pre-packed into panels (versa-pack-weights): the op is then a batch
    contraction over panels, whose rows the strategy splits the same way."""
    rng = np.random.default_rng(m + k + n)
    a, w = _ints(rng, (m, k)), _ints(rng, (k, n))
    wt = f"tensor<{k}x{n}xf32>"
    text = f"""func.func @main(%a: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = "versa.constant"() {{value = dense<"0x{w.tobytes().hex().upper()}"> : {wt}}} : () -> {wt}
  %0 = "versa.matmul"(%a, %w) : (tensor<{m}x{k}xf32>, {wt}) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""
    (got,) = Compiled(text, pipeline).jit(a)
    np.testing.assert_allclose(got, a.astype(np.float64) @ w, rtol=0, atol=1e-6 * k)


@pytest.mark.parametrize("pipeline", PIPELINES.values(), ids=PIPELINES.keys())
@pytest.mark.parametrize("m", [49, 197, 198])
def test_ragged_rows_epilogue(m: int, pipeline: str) -> None:
    """linear + bias + GELU, fused (versa-fuse): the epilogue strategy's ragged rows."""
    k, n = 256, 192
    a, w, c = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    text = f"""func.func @main(%x: {a}, %w: {w}, %b: tensor<{n}xf32>) -> {c} {{
  %0 = "versa.matmul"(%x, %w) : ({a}, {w}) -> {c}
  %1 = "versa.add"(%0, %b) : ({c}, tensor<{n}xf32>) -> {c}
  %2 = "versa.gelu"(%1) : ({c}) -> {c}
  return %2 : {c}
}}"""
    compiled = Compiled(text, f"versa-fuse,{pipeline}")
    inputs = compiled.random_inputs(m)
    (got,) = compiled.jit(*inputs)
    (want,) = reference(text, inputs)
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    (tol,) = tolerance.for_function(find_function(module, None))
    assert tolerance.check(got, want, tol) is None
