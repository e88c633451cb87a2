"""Attention's batch matmuls through the matmul strategy, against NumPy, on both ISAs.

Per head: scores = Q·Kᵀ ([H, S, 64] x [H, 64, S]: K = 64, Kᵀ a transpose of [H, S, 64], as
torch's SDPA decomposition and Hugging Face's eager attention give it) and out = P·V
([H, S, S] x [H, S, 64]: N = 64). With K in one cache block the strategy zeroes each C cache
block right before its register tiles accumulate into it (`MatmulStrategy.fills_blocks`), so
the cases cover a C split in row blocks (S = 600: rows split across threads, each thread's
rows in 200-row blocks, the last one partial), odd S (197: ViT-B/16's tokens; every register
level peels or masks), K in two blocks (C zeroed whole), the scale epilogue of SDPA
(EpilogueStrategy) and the whole SDPA (softmax between the two). Each runs for the host and for
x86-64-v3 (AVX2: 8 lanes, 16 registers), at 1 and 2 threads.

Inputs are small integers stored as floats, so the matmuls' sums are exact in f32 and must
equal NumPy's float64 product up to atol = 1e-6 * K; SDPA's softmax is checked to rtol 1e-5.
"""

import numpy as np
import pytest
from conftest import Compiled

PIPELINES = [
    f"lower-to-llvm{{opt-level=3 threads={threads} target={target}}}"
    for target in ("host", "x86-64-v3")
    for threads in (1, 2)
]


def _matmul_text(heads: int, m: int, k: int, n: int, transposed: bool, scale: bool) -> str:
    a_t, b_t, c_t = (f"tensor<{heads}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    given = f"tensor<{heads}x{n}x{k}xf32>" if transposed else b_t
    lines = []
    if transposed:
        lines.append(f'%b = "versa.transpose"(%g) {{perm = array<i64: 0, 2, 1>}} : ({given}) -> {b_t}')
    lines.append(f'%c = "versa.matmul"(%a, {"%b" if transposed else "%g"}) : ({a_t}, {b_t}) -> {c_t}')
    result = "%c"
    if scale:
        lines.append('%s = "versa.constant"() {value = dense<1.25e-01> : tensor<f32>} : () -> tensor<f32>')
        lines.append(f'%r = "versa.mul"(%c, %s) : ({c_t}, tensor<f32>) -> {c_t}')
        result = "%r"
    body = "\n  ".join(lines)
    return f"func.func @main(%a: {a_t}, %g: {given}) -> {c_t} {{\n  {body}\n  return {result} : {c_t}\n}}"


CASES = [
    # (heads, m, k, n, transposed B, scale epilogue)
    (6, 197, 64, 197, True, False),  # ViT-B/16's Q·Kᵀ: odd S, K = 64
    (6, 197, 197, 64, False, False),  # its P·V: N = 64, K odd (a step-1 k loop)
    (3, 600, 64, 600, True, False),  # C in ragged row blocks, each zeroed right before its tiles
    (2, 512, 64, 512, False, False),  # K given, whole register tiles, B packed
    (6, 128, 64, 128, True, True),  # BERT's scores with SDPA's scale: the epilogue strategy
    (5, 300, 64, 300, False, False),  # heads above the threads, unevenly split
    (2, 257, 512, 64, False, False),  # P·V with K in two cache blocks: C zeroed whole
]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("heads,m,k,n,transposed,scale", CASES)
def test_attention_matmul(
    heads: int, m: int, k: int, n: int, transposed: bool, scale: bool, pipeline: str
) -> None:
    rng = np.random.default_rng(heads * 7 + m * 5 + k * 3 + n)
    a = rng.integers(-3, 4, (heads, m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (heads, k, n)).astype(np.float32)
    given = np.ascontiguousarray(np.swapaxes(b, -1, -2)) if transposed else b
    (got,) = Compiled(_matmul_text(heads, m, k, n, transposed, scale), pipeline).jit(a, given)
    want = np.matmul(a.astype(np.float64), b) * (0.125 if scale else 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * k)


def _sdpa_text(heads: int, s: int, d: int) -> str:
    x_t, kt_t, p_t = (f"tensor<1x{heads}x{x}x{y}xf32>" for x, y in ((s, d), (d, s), (s, s)))
    return f"""
func.func @main(%q: {x_t}, %k: {x_t}, %v: {x_t}) -> {x_t} {{
  %kt = "versa.transpose"(%k) {{perm = array<i64: 0, 1, 3, 2>}} : ({x_t}) -> {kt_t}
  %s = "versa.matmul"(%q, %kt) : ({x_t}, {kt_t}) -> {p_t}
  %c = "versa.constant"() {{value = dense<1.25e-01> : tensor<f32>}} : () -> tensor<f32>
  %m = "versa.mul"(%s, %c) : ({p_t}, tensor<f32>) -> {p_t}
  %p = "versa.softmax"(%m) {{axis = 3 : i64}} : ({p_t}) -> {p_t}
  %o = "versa.matmul"(%p, %v) : ({p_t}, {x_t}) -> {x_t}
  return %o : {x_t}
}}"""


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("heads,s", [(6, 197), (2, 600)])
def test_sdpa(heads: int, s: int, pipeline: str) -> None:
    """The whole attention, as torch's SDPA decomposes: the scores' kernel, softmax, P·V."""
    rng = np.random.default_rng(s)
    q, k, v = (rng.standard_normal((1, heads, s, 64)).astype(np.float32) for _ in range(3))
    (got,) = Compiled(_sdpa_text(heads, s, 64), pipeline).jit(q, k, v)
    scores = np.matmul(q.astype(np.float64), np.swapaxes(k, -1, -2)) * 0.125
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    want = np.matmul(probs / probs.sum(-1, keepdims=True), v)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
