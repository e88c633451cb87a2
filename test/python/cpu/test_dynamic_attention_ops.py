"""Attention's ops compiled once with a dynamic sequence, against NumPy at many lengths.

`probs @ V` (K dynamic: the matmul strategy's k loop runs over it, in registers), `q @ k.T`
(M and N dynamic: rows of 32, columns in the tile cascade), a linear layer over dynamic rows
(the cascade of halves: full tiles of 256, then 128, 64, ... 8, one row alone, a padded
tile), and softmax over a dynamic row (the row kernel's full vectors and masked tail). Lengths
1, 7 (fewer than the smallest tile), 64 (one tile), 129 (a tile and a row), 300 (a full tile
and a remainder of several). Tolerance: |got - want| <= 1e-5 * max|want| + 1e-4 * |want|, in
float64 against float32 inputs (K up to 300 sums)."""

import numpy as np
import pytest
from row_programs import softmax_f64
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir

B, D, H = 3, 16, 48  # batch x heads, head dim, a linear layer's width
LENGTHS = (1, 7, 64, 129, 300)


def _t(*dims) -> str:
    return "tensor<" + "x".join(str(d) for d in dims) + "xf32>"


FUNCTIONS = {
    "probs_v": (
        f"""func.func @f(%p: {_t(B, "?", "?")}, %v: {_t(B, "?", D)}) -> {_t(B, "?", D)} {{
  %0 = "versa.matmul"(%p, %v) : ({_t(B, "?", "?")}, {_t(B, "?", D)}) -> {_t(B, "?", D)}
  return %0 : {_t(B, "?", D)}
}}""",
        lambda s: [(B, s, s), (B, s, D)],
        lambda p, v: p @ v,
    ),
    "q_kt": (
        f"""func.func @f(%q: {_t(B, "?", D)}, %k: {_t(B, D, "?")}) -> {_t(B, "?", "?")} {{
  %0 = "versa.matmul"(%q, %k) : ({_t(B, "?", D)}, {_t(B, D, "?")}) -> {_t(B, "?", "?")}
  return %0 : {_t(B, "?", "?")}
}}""",
        lambda s: [(B, s, D), (B, D, s + 3)],
        lambda q, k: q @ k,
    ),
    "linear_relu": (
        f"""func.func @f(%x: {_t("?", H)}, %w: {_t(H, H)}, %c: {_t(H)}) -> {_t("?", H)} {{
  %0 = "versa.matmul"(%x, %w) : ({_t("?", H)}, {_t(H, H)}) -> {_t("?", H)}
  %1 = "versa.add"(%0, %c) : ({_t("?", H)}, {_t(H)}) -> {_t("?", H)}
  %2 = "versa.relu"(%1) : ({_t("?", H)}) -> {_t("?", H)}
  return %2 : {_t("?", H)}
}}""",
        lambda s: [(s, H), (H, H), (H,)],
        lambda x, w, c: np.maximum(x @ w + c, 0),
    ),
    "softmax": (
        f"""func.func @f(%x: {_t(B, "?", "?")}) -> {_t(B, "?", "?")} {{
  %0 = "versa.softmax"(%x) {{axis = -1 : i64}} : ({_t(B, "?", "?")}) -> {_t(B, "?", "?")}
  return %0 : {_t(B, "?", "?")}
}}""",
        lambda s: [(B, s, s)],
        softmax_f64,
    ),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_one_compile_matches_numpy_at_every_length(name, threads):
    text, shapes_of, numpy_f = FUNCTIONS[name]
    with make_context(), ir.Location.unknown():
        compiled = JitFunction(
            ir.Module.parse(text), pipeline=f"lower-to-llvm{{threads={threads}}}", cache=False
        )
    rng = np.random.default_rng(3)
    for s in LENGTHS:
        inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes_of(s)]
        want = numpy_f(*(x.astype(np.float64) for x in inputs))
        (got,) = compiled(*inputs)
        bound = 1e-5 * np.abs(want).max() + 1e-4 * np.abs(want)
        assert got.shape == want.shape, (s, got.shape)
        assert (np.abs(got - want) <= bound).all(), (s, np.abs(got - want).max())
