"""f16 contractions sum in f32 and round once, as PyTorch's CPU kernels and cuBLAS do
(`linalg_builders.accumulator`): an f16 accumulator stops growing once its ulp exceeds the
products (4096 products near 0.25 summed in f16 came out 10% low). The forms a matmul or a
conv lowers to: a 2-D matmul, a linear layer's [.., M, K] x [K, N], equal and broadcast batch
dims (a generic), a conv2d in both layouts and a grouped one (a generic). Each output is within
one f16 rounding (2^-11 relative) of the float64 result; all fail with an f16 accumulator."""

import numpy as np
import pytest
from conftest import Compiled

LEVELS = ["lower-to-llvm{opt-level=0}", "lower-to-llvm{opt-level=3}"]
K = 2048  # products of U(0.25, 0.75)^2: an f16 sum of them stalls near 256


def _type(shape: tuple[int, ...]) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf16>"


MATMULS = {
    "2d": ((8, K), (K, 16)),
    "linear": ((2, 4, K), (K, 8)),
    "batch": ((3, 4, K), (3, K, 8)),
    "broadcast_batch": ((1, 4, K), (3, K, 8)),
}


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("case", MATMULS)
def test_f16_matmul_sums_in_f32(case: str, pipeline: str) -> None:
    a_shape, b_shape = MATMULS[case]
    rng = np.random.default_rng(7)
    a = rng.uniform(0.25, 0.75, a_shape).astype(np.float16)
    b = rng.uniform(0.25, 0.75, b_shape).astype(np.float16)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    text = f"""
func.func @main(%a: {_type(a_shape)}, %b: {_type(b_shape)}) -> {_type(want.shape)} {{
  %0 = "versa.matmul"(%a, %b) : ({_type(a_shape)}, {_type(b_shape)}) -> {_type(want.shape)}
  return %0 : {_type(want.shape)}
}}"""
    (got,) = Compiled(text, pipeline).jit(a, b)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11)


CONVS = {  # x, w, attrs
    "nchw": ((1, 64, 6, 6), (4, 64, 5, 5), 'layout = "NCHW"'),
    "nhwc": ((1, 6, 6, 64), (5, 5, 64, 4), 'layout = "NHWC"'),
    "grouped": ((1, 128, 6, 6), (4, 64, 5, 5), "groups = 2 : i64"),
}


def _conv_nchw(x: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    out = np.zeros((n, f, h - kh + 1, wd - kw + 1))
    fg = f // groups
    for o in range(f):
        g = o // fg
        for i in range(out.shape[2]):
            for j in range(out.shape[3]):
                patch = x[:, g * cg : (g + 1) * cg, i : i + kh, j : j + kw]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("case", CONVS)
def test_f16_conv_sums_in_f32(case: str, pipeline: str) -> None:
    x_shape, w_shape, attrs = CONVS[case]
    rng = np.random.default_rng(11)
    x = rng.uniform(0.25, 0.75, x_shape).astype(np.float16)
    w = rng.uniform(0.25, 0.75, w_shape).astype(np.float16)
    if case == "nhwc":  # x NHWC, w HWCF
        x64, w64 = x.transpose(0, 3, 1, 2).astype(np.float64), w.transpose(3, 2, 0, 1).astype(np.float64)
        want = _conv_nchw(x64, w64, 1).transpose(0, 2, 3, 1)
    else:
        groups = 2 if case == "grouped" else 1
        want = _conv_nchw(x.astype(np.float64), w.astype(np.float64), groups)
    text = f"""
func.func @main(%x: {_type(x_shape)}, %w: {_type(w_shape)}) -> {_type(want.shape)} {{
  %0 = "versa.conv2d"(%x, %w) {{{attrs}}} : ({_type(x_shape)}, {_type(w_shape)}) -> {_type(want.shape)}
  return %0 : {_type(want.shape)}
}}"""
    (got,) = Compiled(text, pipeline).jit(x, w)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2.0**-11)
