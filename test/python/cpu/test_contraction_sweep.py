"""Contractions at every optimisation level and thread count, on sizes chosen to break tiling:
1, primes, and sizes just below and above multiples of the register and cache tiles.

The codegen strategies peel and mask partial tiles; an off-by-one there shows up as a wrong
row, column or k-slice. Inputs are small integers stored as floats, so every partial sum is
exact in f32 and the comparison with NumPy's float64 result can be exact up to a tolerance
scaled with the reduction length.
"""

import numpy as np
import pytest
from conftest import Compiled, reference

LEVELS = ["lower-to-llvm{opt-level=0}", "lower-to-llvm{opt-level=2}", "lower-to-llvm{opt-level=3 threads=2}"]

MATMUL_SIZES = [
    (1, 1, 1),
    (1, 17, 3),  # a row vector: M below every register tile
    (7, 31, 5),
    (9, 33, 4),  # just above a register tile in M and N
    (37, 131, 67),  # primes
    (64, 96, 260),  # K just above a cache-tile multiple
    (130, 65, 129),  # threads with uneven rows
    (1, 1000, 2048),  # a GEMV: one row of 16-vector tiles, N ragged, K in one block
    (3, 257, 9),  # few rows: wider register tiles, one column over a multiple
    (97, 256, 128),  # B packed into register panels; M ragged (peeled) per thread
]


def _ints(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(np.float32)


def _check(got: np.ndarray, want: np.ndarray, k: int) -> None:
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * k)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("m,n,k", MATMUL_SIZES)
def test_matmul_sizes(m: int, n: int, k: int, pipeline: str) -> None:
    text = f"""
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = "versa.matmul"(%a, %b) : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
    (got,) = Compiled(text, pipeline).jit(a, b)
    _check(got, a.astype(np.float64) @ b, k)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    "batch,m,n,k",
    [(1, 5, 7, 3), (3, 9, 33, 12), (5, 16, 40, 7), ((2, 3), 17, 19, 8), (3, 72, 128, 128)],  # last: packed B
)
def test_batch_matmul_sizes(batch: int | tuple[int, int], m: int, n: int, k: int, pipeline: str) -> None:
    dims = "x".join(str(d) for d in np.atleast_1d(batch))
    a_t, b_t, c_t = (f"tensor<{dims}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    text = f"""
func.func @main(%a: {a_t}, %b: {b_t}) -> {c_t} {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  return %0 : {c_t}
}}"""
    rng = np.random.default_rng(m + n + k)
    lead = tuple(np.atleast_1d(batch))
    a, b = _ints(rng, (*lead, m, k)), _ints(rng, (*lead, k, n))
    (got,) = Compiled(text, pipeline).jit(a, b)
    _check(got, a.astype(np.float64) @ b, k)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("m,k,h", [(19, 48, 70), (1, 520, 300)])
def test_matmul_epilogue_and_chain(m: int, k: int, h: int, pipeline: str) -> None:
    """matmul + bias + relu feeding a second matmul (an MLP): tiled ops next to other ops; at
    batch 1 the register tile is one row of 16 vectors and the hidden width is ragged."""
    text = f"""
func.func @main(%x: tensor<{m}x{k}xf32>, %w1: tensor<{k}x{h}xf32>, %b1: tensor<{h}xf32>,
               %w2: tensor<{h}x10xf32>) -> tensor<{m}x10xf32> {{
  %0 = "versa.matmul"(%x, %w1) : (tensor<{m}x{k}xf32>, tensor<{k}x{h}xf32>) -> tensor<{m}x{h}xf32>
  %1 = "versa.add"(%0, %b1) : (tensor<{m}x{h}xf32>, tensor<{h}xf32>) -> tensor<{m}x{h}xf32>
  %2 = "versa.relu"(%1) : (tensor<{m}x{h}xf32>) -> tensor<{m}x{h}xf32>
  %3 = "versa.matmul"(%2, %w2) : (tensor<{m}x{h}xf32>, tensor<{h}x10xf32>) -> tensor<{m}x10xf32>
  return %3 : tensor<{m}x10xf32>
}}"""
    rng = np.random.default_rng(7)
    x, w1, b1, w2 = _ints(rng, (m, k)), _ints(rng, (k, h)), _ints(rng, (h,)), _ints(rng, (h, 10))
    (got,) = Compiled(text, pipeline).jit(x, w1, b1, w2)
    hidden = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    _check(got, hidden @ w2, k * h)


@pytest.mark.parametrize("pipeline", LEVELS[1:])
def test_equal_matmuls_share_a_fill(pipeline: str) -> None:
    """cse merges the zero fills of equal-shaped matmuls: each strategy must still work."""
    text = """
func.func @main(%a: tensor<40x24xf32>, %b: tensor<24x40xf32>) -> (tensor<40x40xf32>, tensor<40x40xf32>) {
  %0 = "versa.matmul"(%a, %b) : (tensor<40x24xf32>, tensor<24x40xf32>) -> tensor<40x40xf32>
  %1 = "versa.matmul"(%a, %b) : (tensor<40x24xf32>, tensor<24x40xf32>) -> tensor<40x40xf32>
  %2 = "versa.relu"(%1) : (tensor<40x40xf32>) -> tensor<40x40xf32>
  return %0, %2 : tensor<40x40xf32>, tensor<40x40xf32>
}"""
    rng = np.random.default_rng(3)
    a, b = _ints(rng, (40, 24)), _ints(rng, (24, 40))
    got0, got1 = Compiled(text, pipeline).jit(a, b)
    want = a.astype(np.float64) @ b
    _check(got0, want, 24)
    _check(got1, np.maximum(want, 0), 24)


@pytest.mark.parametrize("pipeline", LEVELS)
def test_linear_layer_on_batched_rows(pipeline: str) -> None:
    """[B, S, K] x [K, N]: the rows fold into one 2-D matmul."""
    text = """
func.func @main(%x: tensor<2x5x12xf32>, %w: tensor<12x33xf32>) -> tensor<2x5x33xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<2x5x12xf32>, tensor<12x33xf32>) -> tensor<2x5x33xf32>
  return %0 : tensor<2x5x33xf32>
}"""
    rng = np.random.default_rng(11)
    x, w = _ints(rng, (2, 5, 12)), _ints(rng, (12, 33))
    (got,) = Compiled(text, pipeline).jit(x, w)
    _check(got, x.astype(np.float64) @ w, 12)


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("pipeline", LEVELS)
def test_linear_layer_epilogue_on_batched_rows(pipeline: str, fused: bool) -> None:
    """[B, S, K] x [K, N] + bias, + a residual [B, S, N], relu: the epilogue runs in the 2-D
    matmul's shape (versa-collapse-epilogues), with M ragged and split across threads."""
    text = """
func.func @main(%x: tensor<3x37x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>, %r: tensor<3x37x96xf32>)
    -> tensor<3x37x96xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<3x37x64xf32>, tensor<64x96xf32>) -> tensor<3x37x96xf32>
  %1 = "versa.add"(%0, %b) : (tensor<3x37x96xf32>, tensor<96xf32>) -> tensor<3x37x96xf32>
  %2 = "versa.add"(%1, %r) : (tensor<3x37x96xf32>, tensor<3x37x96xf32>) -> tensor<3x37x96xf32>
  %3 = "versa.relu"(%2) : (tensor<3x37x96xf32>) -> tensor<3x37x96xf32>
  return %3 : tensor<3x37x96xf32>
}"""
    rng = np.random.default_rng(12)
    x, w, b, r = _ints(rng, (3, 37, 64)), _ints(rng, (64, 96)), _ints(rng, (96,)), _ints(rng, (3, 37, 96))
    steps = f"versa-fuse,{pipeline}" if fused else pipeline
    (got,) = Compiled(text, steps).jit(x, w, b, r)
    _check(got, np.maximum(x.astype(np.float64) @ w + b + r, 0), 64)


@pytest.mark.parametrize("fused", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    "batch,m,n,k",
    [(1, 37, 70, 9), (3, 9, 33, 12), (5, 130, 65, 20), ((2, 3), 17, 40, 8), (2, 300, 600, 16)],
)
def test_batch_matmul_epilogue(
    batch: int | tuple[int, int], m: int, n: int, k: int, pipeline: str, fused: bool
) -> None:
    """([..., M, K] x [..., K, N] + bias) * 2 (a size-1 constant) + a residual, relu: the
    epilogue runs on each batch's output tiles (threads over batches, or over rows and columns
    when batches are few), with ragged rows and columns; the last size needs several cache
    tiles per batch."""
    dims = "x".join(str(d) for d in np.atleast_1d(batch))
    a_t, b_t, c_t = (f"tensor<{dims}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    text = f"""
func.func @main(%a: {a_t}, %b: {b_t}, %bias: tensor<{n}xf32>, %r: {c_t}) -> {c_t} {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  %1 = "versa.add"(%0, %bias) : ({c_t}, tensor<{n}xf32>) -> {c_t}
  %s = "versa.constant"() {{value = dense<2.0> : tensor<1xf32>}} : () -> tensor<1xf32>
  %2 = "versa.mul"(%1, %s) : ({c_t}, tensor<1xf32>) -> {c_t}
  %3 = "versa.add"(%r, %2) : ({c_t}, {c_t}) -> {c_t}
  %4 = "versa.relu"(%3) : ({c_t}) -> {c_t}
  return %4 : {c_t}
}}"""
    rng = np.random.default_rng(m * n + k)
    lead = tuple(np.atleast_1d(batch))
    a, b = _ints(rng, (*lead, m, k)), _ints(rng, (*lead, k, n))
    bias, r = _ints(rng, (n,)), _ints(rng, (*lead, m, n))
    steps = f"versa-fuse,{pipeline}" if fused else pipeline
    (got,) = Compiled(text, steps).jit(a, b, bias, r)
    _check(got, np.maximum((a.astype(np.float64) @ b + bias) * 2 + r, 0), 2 * k)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("contraction", ["matmul", "conv2d"])
def test_consumer_that_reads_its_own_init(contraction: str, pipeline: str) -> None:
    """A mean over no axes is an elementwise op that adds into its own zero init (a fill that
    cse merges with the contraction's): it must not become the contraction's epilogue, which
    would accumulate the contraction into that init too (found by versa-fuzz: 2x the result,
    then more on every call)."""
    if contraction == "matmul":
        a_t, b_t, y_t = "tensor<40x24xf32>", "tensor<24x48xf32>", "tensor<40x48xf32>"
        op = f'"versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {y_t}'
    else:
        a_t, b_t, y_t = "tensor<2x9x10x8xf32>", "tensor<3x3x8x16xf32>", "tensor<2x7x8x16xf32>"
        op = f'"versa.conv2d"(%a, %b) {{layout = "NHWC"}} : ({a_t}, {b_t}) -> {y_t}'
    text = f"""
func.func @main(%a: {a_t}, %b: {b_t}) -> {y_t} {{
  %0 = {op}
  %1 = "versa.reduce_mean"(%0) {{axes = array<i64>}} : ({y_t}) -> {y_t}
  return %1 : {y_t}
}}"""
    compiled = Compiled(text, pipeline)
    inputs = [3 * x for x in compiled.random_inputs()]
    want = reference(text, inputs)[0]
    for _ in range(2):  # the second call must not see the first one's result
        (got,) = compiled.jit(*inputs)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
