"""Small and skinny matmuls through the matmul strategy's paths at 1 and 2 threads: one thread
below the fork/join cost, the zero fill fused into the threads' loop, row-by-row register tiles
for a short k loop (K <= a vector; with whole tiles the fill is fused into each tile), M = 1,
N = 1 (dot products), batches above and below the thread count, and B transposed (a@b.T,
q@kT). Sizes are odd so that every register tile level peels or masks.

Inputs are small integers stored as floats: every partial sum is exact in f32, so the result
must equal NumPy's float64 product up to atol = 1e-6 * K (exact in practice).
"""

import numpy as np
import pytest
from conftest import Compiled

LEVELS = ["lower-to-llvm{opt-level=2}", "lower-to-llvm{opt-level=3 threads=2}"]

CASES = [
    # (batch, m, k, n, transposed b)
    (0, 100, 100, 100, False),  # too little work for two threads
    (0, 37, 53, 71, False),  # primes, serial
    (0, 1, 300, 257, False),  # M = 1 (a GEMV), N ragged
    (0, 1, 2048, 1200, False),  # M = 1, 9.8 MB of B: columns across threads (bandwidth-bound)
    (0, 203, 301, 1, False),  # N = 1: dot products along K (matvec.py), K ragged (a tail)
    (0, 2048, 4104, 1, False),  # N = 1 across threads
    (3, 64, 100, 1, False),  # N = 1, batched
    (0, 40, 20, 1, False),  # N = 1, K below two vectors: the matmul kernel
    (0, 200, 200, 221, False),  # threads over rows, fill fused into the forall, N ragged
    (0, 2050, 3, 2049, False),  # K = 3: row-by-row tiles, threads, M and N ragged
    (0, 67, 5, 131, False),  # K = 5, serial, ragged
    (0, 1024, 8, 1024, False),  # K = 8, whole tiles: the fill fused into each tile, threads
    (2, 128, 8, 256, False),  # the same, batched, serial
    (5, 96, 100, 200, False),  # batch > threads: 3 + 2 batches
    (1, 300, 150, 200, False),  # batch < threads: rows split
    (3, 17, 9, 33, False),  # small batch, serial
    (0, 13, 1031, 7, False),  # K % 4 != 0, no divisor near the k cache tile: step-1 k registers
    (2, 13, 1025, 7, False),  # the same, batched
    (0, 100, 100, 100, True),  # a@b.T
    (12, 33, 64, 33, True),  # q@kT, ragged
    (4, 128, 64, 128, True),  # q@kT, threads over batches
]


def _text(batch: int, m: int, k: int, n: int, transposed: bool) -> str:
    lead = f"{batch}x" if batch else ""
    a_t, b_t, c_t = (f"tensor<{lead}{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    if not transposed:
        return f"""
func.func @main(%a: {a_t}, %b: {b_t}) -> {c_t} {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  return %0 : {c_t}
}}"""
    bt_t, perm = f"tensor<{lead}{n}x{k}xf32>", ("0, 2, 1" if batch else "1, 0")
    return f"""
func.func @main(%a: {a_t}, %bt: {bt_t}) -> {c_t} {{
  %b = "versa.transpose"(%bt) {{perm = array<i64: {perm}>}} : ({bt_t}) -> {b_t}
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  return %0 : {c_t}
}}"""


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("batch,m,k,n,transposed", CASES)
def test_matmul_shapes(batch: int, m: int, k: int, n: int, transposed: bool, pipeline: str) -> None:
    rng = np.random.default_rng(batch * 7 + m * 5 + k * 3 + n)
    lead = (batch,) if batch else ()
    a = rng.integers(-3, 4, (*lead, m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (*lead, k, n)).astype(np.float32)
    given = np.ascontiguousarray(np.swapaxes(b, -1, -2)) if transposed else b
    (got,) = Compiled(_text(batch, m, k, n, transposed), pipeline).jit(a, given)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=0, atol=1e-6 * k)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("m", [256, 40])
def test_shared_fill(m: int, pipeline: str) -> None:
    """Matmuls of one output shape share their zero fill (cse): each fuses it into its own
    threads' loop, or leaves it for the next (m = 40: too small for threads, next to a 256³
    that has them)."""
    a_t, w_t, c_t = f"tensor<{m}x256xf32>", "tensor<256x256xf32>", f"tensor<{m}x256xf32>"
    text = f"""
func.func @main(%a: {a_t}, %b: {w_t}, %c: {w_t}) -> ({c_t}, {c_t}, {w_t}) {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {w_t}) -> {c_t}
  %1 = "versa.matmul"(%a, %c) : ({a_t}, {w_t}) -> {c_t}
  %2 = "versa.matmul"(%b, %c) : ({w_t}, {w_t}) -> {w_t}
  return %0, %1, %2 : {c_t}, {c_t}, {w_t}
}}"""
    rng = np.random.default_rng(m)
    a, b, c = (rng.integers(-3, 4, s).astype(np.float32) for s in ((m, 256), (256, 256), (256, 256)))
    got = Compiled(text, pipeline).jit(a, b, c)
    for result, want in zip(got, (a @ b, a @ c, b @ c), strict=True):
        np.testing.assert_allclose(result, want.astype(np.float64), rtol=0, atol=1e-6 * 256)


@pytest.mark.parametrize("pipeline", LEVELS)
def test_rank_update_with_producer(pipeline: str) -> None:
    """K = 4 with A computed by an elementwise op: the tiles that fuse the fill must not fuse
    (and recompute per tile) A's producer; the plain row-by-row kernel takes it."""
    text = """
func.func @main(%x: tensor<512x4xf32>, %b: tensor<4x512xf32>) -> tensor<512x512xf32> {
  %a = "versa.relu"(%x) : (tensor<512x4xf32>) -> tensor<512x4xf32>
  %0 = "versa.matmul"(%a, %b) : (tensor<512x4xf32>, tensor<4x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}"""
    rng = np.random.default_rng(4)
    x, b = (rng.integers(-3, 4, s).astype(np.float32) for s in ((512, 4), (4, 512)))
    (got,) = Compiled(text, pipeline).jit(x, b)
    np.testing.assert_allclose(got, np.maximum(x, 0).astype(np.float64) @ b, rtol=0, atol=1e-6 * 4)


@pytest.mark.parametrize("pipeline", LEVELS)
def test_shared_fill_rank_update(pipeline: str) -> None:
    """Two rank-8 updates sharing one zero fill (cse): each fuses a copy into its own tiles."""
    a_t, b_t, c_t = "tensor<1024x8xf32>", "tensor<8x1024xf32>", "tensor<1024x1024xf32>"
    text = f"""
func.func @main(%a: {a_t}, %b: {b_t}, %c: {b_t}) -> ({c_t}, {c_t}) {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  %1 = "versa.matmul"(%a, %c) : ({a_t}, {b_t}) -> {c_t}
  return %0, %1 : {c_t}, {c_t}
}}"""
    rng = np.random.default_rng(8)
    a, b, c = (rng.integers(-3, 4, s).astype(np.float32) for s in ((1024, 8), (8, 1024), (8, 1024)))
    got = Compiled(text, pipeline).jit(a, b, c)
    for result, want in zip(got, (a @ b, a @ c), strict=True):
        np.testing.assert_allclose(result, want.astype(np.float64), rtol=0, atol=1e-6 * 8)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    "batch,m,k,n", [(2, 30, 4, 27), (4, 30, 16, 27), (0, 30, 16, 27), (0, 13, 1031, 7), (2, 13, 1025, 20)]
)
def test_epilogue_with_a_one_trip_column_loop(batch: int, m: int, k: int, n: int, pipeline: str) -> None:
    """relu(a @ b) with N between one and two epilogue vectors: the peeled main column loop runs
    once and canonicalization folds it away (its handle must not be needed after that). With K %
    4 != 0 and no divisor near the k cache tile (1031, 1025), the register k loop steps by 1
    inside a ragged cache tile: nothing to peel there."""
    lead = f"{batch}x" if batch else ""
    a_t, b_t, c_t = (f"tensor<{lead}{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    text = f"""
func.func @main(%a: {a_t}, %b: {b_t}) -> {c_t} {{
  %0 = "versa.matmul"(%a, %b) : ({a_t}, {b_t}) -> {c_t}
  %1 = "versa.relu"(%0) : ({c_t}) -> {c_t}
  return %1 : {c_t}
}}"""
    rng = np.random.default_rng(m + k + n)
    shape = (batch,) if batch else ()
    a, b = (rng.integers(-3, 4, (*shape, *s)).astype(np.float32) for s in ((m, k), (k, n)))
    (got,) = Compiled(text, f"versa-fuse,{pipeline}").jit(a, b)
    np.testing.assert_allclose(got, np.maximum(a.astype(np.float64) @ b, 0), rtol=0, atol=1e-6 * k)
