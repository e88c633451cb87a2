"""The three-pass softmax row kernel with rows aligned to vectors (passes/row_aligned.py): each
pass over row r takes a masked head of h = -(r * N) mod V columns, full vectors from h (on
64-byte boundaries where the tensor's base is), then a masked tail. Forced three-pass (the gate
pipelines small shapes), against NumPy in float64: row lengths where the rows' heads take every
value 0 .. V-1 (so 1 and V-1), rows of one head and less than a full vector after it, rows a
vector divides (no head), rows shorter than a vector (not aligned: the row is one masked
vector), 3-D inputs, threads 1/2/3, opt-levels 1 and 3, a fused producer and consumer, -inf and
large logits in heads and tails, and an output whose base is not 64-byte aligned. Tolerance:
2e-6 relative + 1e-7 absolute, as test_row_kernels.py and test_softmax_pipelined.py. layer_norm
takes the same aligned passes (its own test at the end)."""

import re

import numpy as np
import pytest
import versa.passes.cpu.row_kernels as row_kernels
from conftest import Compiled
from row_programs import (
    LEVELS,
    fused_softmax_case,
    fused_softmax_text,
    layer_norm_text,
    softmax_f64,
    softmax_text,
)
from versa import compiler, targets
from versa.cpu.runtime import aligned_empty

V = targets.resolve("host").lanes(32)
SHAPES = [
    (V + 1, 3 * V + 1),  # N = 1 mod V: row r's head is -r mod V, every value over V rows
    (V + 2, 5 * V - 1),  # N = -1 mod V: row 1's head is 1
    (V + 1, V + 1),  # heads up to V - 1 leave no full vector, only the tail
    (7, 1000),  # four-vector blocks, single vectors left over, the tail
    (5, 4 * V),  # a vector divides the rows: no head
    (3, 5),  # shorter than a vector: one masked vector, not aligned
    (3, 5, 3 * V + 3),
]
ALIGNED_HEAD = re.compile(r"vector\.transfer_write %\S+, %\S+\[%\S+, %\S+\], %\S+ \{in_bounds = \[true\]\}")


@pytest.fixture
def three_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every softmax kernel compiled while this is active takes three passes per row (the
    compiler imports the passes as `versa.passes`)."""
    monkeypatch.setattr(row_kernels, "pipelines", lambda *args: False)


def _aligned(shape: tuple[int, ...]) -> bool:
    return shape[-1] % V != 0 and shape[-1] >= V


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_softmax_aligned(shape: tuple[int, ...], pipeline: str, three_pass: None) -> None:
    x = (3 * np.random.default_rng(0).standard_normal(shape)).astype(np.float32)
    kernels = str(compiler.compile_text(softmax_text(shape), "versa-row-kernels"))
    assert bool(ALIGNED_HEAD.search(kernels)) == _aligned(shape)
    (got,) = Compiled(softmax_text(shape), pipeline).jit(x)
    np.testing.assert_allclose(got, softmax_f64(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("pipeline", LEVELS[1:3])
def test_infinities_in_heads_and_tails(pipeline: str, three_pass: None) -> None:
    """-inf in a head (exactly 0), a row of -inf (NaN, that row only), large logits."""
    n = 3 * V + 1
    x = np.random.default_rng(1).standard_normal((6, n)).astype(np.float32)
    x[1, : V - 1] = -np.inf  # row 1's head is V - 1 columns
    x[2, :] = -np.inf
    x[3, n - 1] = -np.inf  # in the tail
    x[4, ::2], x[4, 1::2] = 1000.0, -1000.0
    x[5, :] = 3e38
    (got,) = Compiled(softmax_text(x.shape), pipeline).jit(x)
    want = softmax_f64(x)
    assert np.isnan(got[2]).all() and np.isnan(want[2]).all()
    keep = [0, 1, 3, 4, 5]
    np.testing.assert_allclose(got[keep], want[keep], rtol=2e-6, atol=1e-7)
    assert (got[1, : V - 1] == 0).all() and got[3, n - 1] == 0


@pytest.mark.parametrize("offset", [0, 4, 60])
def test_output_off_a_boundary(offset: int, three_pass: None) -> None:
    """An out= array whose base is `offset` bytes past a 64-byte boundary: the full vectors are
    then off their boundaries too, the result the same."""
    shape = (V + 1, 3 * V + 1)
    x = (3 * np.random.default_rng(3).standard_normal(shape)).astype(np.float32)
    size = int(np.prod(shape))
    raw = aligned_empty((size + 16,), np.float32)
    out = raw[offset // 4 : offset // 4 + size].reshape(shape)
    jit = Compiled(softmax_text(shape), "lower-to-llvm{opt-level=3 threads=2}").jit
    jit(x, out=[out])
    np.testing.assert_allclose(out, softmax_f64(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", [(3, 5, 3 * V + 1), (2, V + 1, 5 * V - 1), (1, 3, 1000)], ids=str)
def test_fused_producer_and_consumer(shape: tuple[int, ...], pipeline: str, three_pass: None) -> None:
    """The producer reads its inputs and the consumer its own at the head's columns, masked."""
    inputs, want = fused_softmax_case(shape)
    kernels = str(compiler.compile_text(fused_softmax_text(shape), "versa-row-kernels"))
    assert "func.func private @versa_softmax_0_input" in kernels
    assert "func.func private @versa_softmax_0_output" in kernels
    assert bool(ALIGNED_HEAD.search(kernels)) == _aligned(shape)  # 1000 columns: 8-lane rows have no head
    (got,) = Compiled(fused_softmax_text(shape), pipeline).jit(*inputs)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_layer_norm_aligned(shape: tuple[int, ...], pipeline: str) -> None:
    """layer_norm's three passes (mean, variance, output) take the same heads: the padding of a
    head is x0 in the mean's pass (x - x0 = 0) and selected out of the variance's; gamma and beta
    are read at the row's columns. 1e-6 absolute: layer_norm's outputs are O(1)."""
    rng = np.random.default_rng(1)
    x = (3 * rng.standard_normal(shape) + 1).astype(np.float32)
    g, b = (rng.standard_normal(shape[-1]).astype(np.float32) for _ in range(2))
    kernels = str(compiler.compile_text(layer_norm_text(shape), "versa-row-kernels"))
    assert bool(ALIGNED_HEAD.search(kernels)) == _aligned(shape)
    (got,) = Compiled(layer_norm_text(shape), pipeline).jit(x, g, b)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=-1, keepdims=True), x64.var(axis=-1, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5) * g + b
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
