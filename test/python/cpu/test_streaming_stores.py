"""Non-temporal stores (versa-streaming-stores) in compiled code: outputs at least the host's
last-level cache are streamed when a vector's address is aligned and stored plainly when not,
both giving the exact results; smaller outputs, and outputs the kernel reads back, never stream.
Results are compared exactly (relu and a transpose round nothing)."""

import math

import numpy as np
import pytest
from conftest import Compiled
from versa import targets
from versa.cpu.runtime import aligned_empty

LLC = targets.host().caches[2]
LEVELS = ["lower-to-llvm{opt-level=1}", "lower-to-llvm{opt-level=3 threads=2}"]
# Rows of 1008 f32 (63 vectors): a row starts on a 64-byte boundary only every 16th row, so
# both the streaming and the plain store run. (A masked vector, a ragged row's tail, stays plain.)
COLS = 1008
ROWS = -(-LLC // (4 * COLS)) + 1
pytestmark = pytest.mark.skipif(LLC > 64 << 20, reason="outputs past a last-level cache this large take GBs")


def _relu(rows: int, cols: int) -> str:
    t = f"tensor<{rows}x{cols}xf32>"
    return f"""
func.func @main(%x: {t}) -> {t} {{
  %0 = "versa.relu"(%x) : ({t}) -> {t}
  return %0 : {t}
}}"""


def _streams(compiled: Compiled) -> bool:
    return "nontemporal" in str(compiled.jit.module)


@pytest.mark.parametrize("pipeline", LEVELS)
def test_large_output_streams_and_is_exact(pipeline: str) -> None:
    compiled = Compiled(_relu(ROWS, COLS), pipeline)
    assert _streams(compiled)
    x = np.random.default_rng(0).standard_normal((ROWS, COLS)).astype(np.float32)
    want = np.maximum(x, 0)
    (pooled,) = compiled.jit(x)  # the function's own 64-byte aligned array
    assert pooled.ctypes.data % 64 == 0
    np.testing.assert_array_equal(pooled, want)
    # A caller's array 4 bytes past a line: no vector store is aligned, all take the plain path.
    raw = aligned_empty((ROWS * COLS + 16,), np.float32)
    skewed = raw[1 : 1 + ROWS * COLS].reshape(ROWS, COLS)
    skewed[...] = np.nan
    compiled.jit(x, out=[skewed])
    np.testing.assert_array_equal(skewed, want)


def test_small_output_does_not_stream() -> None:
    assert not _streams(Compiled(_relu(8, COLS), LEVELS[1]))


def test_output_read_back_does_not_stream() -> None:
    """softmax's row kernel writes exp(x - max) and rescales it in cache: streaming the first
    write would send each row to memory and read it back."""
    cols = 4096
    rows = -(-LLC // (4 * cols)) + 1
    t = f"tensor<{rows}x{cols}xf32>"
    text = f"""
func.func @main(%x: {t}) -> {t} {{
  %0 = "versa.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %0 : {t}
}}"""
    compiled = Compiled(text, LEVELS[1])
    assert not _streams(compiled)


def test_transpose_streams_its_tiles() -> None:
    n = 1 << math.ceil(math.log2(math.isqrt(LLC // 4) + 1))
    t, u = f"tensor<{n}x{n}xf32>", f"tensor<{n}x{n}xf32>"
    text = f"""
func.func @main(%x: {t}) -> {u} {{
  %0 = "versa.transpose"(%x) {{perm = array<i64: 1, 0>}} : ({t}) -> {u}
  return %0 : {u}
}}"""
    compiled = Compiled(text, LEVELS[1])
    assert _streams(compiled)
    x = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    (got,) = compiled.jit(x)
    np.testing.assert_array_equal(got, x.T)
