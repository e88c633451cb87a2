"""Pools over dynamic images as kernels (`versa-dynamic-pool-kernels`): one compile per pool,
every size against the reference interpreter. The sizes break the kernels' splits: images
narrower than a tile or than the left tile's reads (masked), a right edge past the last
inside tile by more and by less than half a tile, rows with every window at the border, a
dynamic batch; padding on one side, a window of one, a stride over the kernel, ceil_mode's
extra high padding, both layouts, one and two threads. Max pooling is exact; averages divide
by the taps inside the image, compared to a few ulps."""

import numpy as np
import pytest
from conftest import Compiled, reference

# id: kernel, strides, padding [top, left, bottom, right]
CASES = {
    "3x3_s2_p1": ((3, 3), (2, 2), (1, 1, 1, 1)),
    "3x3_s1_p1": ((3, 3), (1, 1), (1, 1, 1, 1)),
    "2x2_s2": ((2, 2), (2, 2), (0, 0, 0, 0)),
    "one_sided_ceil": ((3, 2), (1, 2), (2, 0, 1, 1)),
    "5x5_s1_p2": ((5, 5), (1, 1), (2, 2, 2, 2)),
    "stride_over_kernel": ((2, 1), (3, 3), (0, 0, 0, 0)),
}
SIZES = ((17, 23), (56, 56), (57, 45), (5, 70), (33, 6), (8, 8))


def _text(op: str, layout: str, batch: str, channels: int, kernel, strides, padding) -> str:
    x = f"{batch}x{channels}x?x?" if layout == "NCHW" else f"{batch}x?x?x{channels}"
    y = x
    attrs = ", ".join(
        f"{name} = array<i64: {', '.join(map(str, v))}>"
        for name, v in (("kernel", kernel), ("strides", strides), ("padding", padding))
    )
    return f"""
func.func @main(%x: tensor<{x}xf32>) -> tensor<{y}xf32> {{
  %0 = "versa.{op}"(%x) {{{attrs}, layout = "{layout}"}} : (tensor<{x}xf32>) -> tensor<{y}xf32>
  return %0 : tensor<{y}xf32>
}}"""


def _check(op: str, layout: str, case: str, pipeline: str, batch: int | None = 2, channels: int = 3) -> None:
    kernel, strides, padding = CASES[case]
    text = _text(op, layout, "?" if batch is None else str(batch), channels, kernel, strides, padding)
    compiled = Compiled(text, pipeline)
    for i, (h, w) in enumerate(SIZES):
        n = batch or 1 + i % 3
        shape = (n, channels, h, w) if layout == "NCHW" else (n, h, w, channels)
        x = np.random.default_rng(h * w).standard_normal(shape).astype(np.float32)
        (got,) = compiled.jit(x)
        (want,) = reference(_static_text(op, layout, shape, kernel, strides, padding), [x])
        assert got.shape == want.shape, (h, w)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"{h}x{w}")


def _static_text(op, layout, shape, kernel, strides, padding) -> str:
    n, h, w, c = (shape[0], shape[2], shape[3], shape[1]) if layout == "NCHW" else shape
    oh = (h + padding[0] + padding[2] - kernel[0]) // strides[0] + 1
    ow = (w + padding[1] + padding[3] - kernel[1]) // strides[1] + 1
    x, y = ((n, c, h, w), (n, c, oh, ow)) if layout == "NCHW" else ((n, h, w, c), (n, oh, ow, c))
    x_t, y_t = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in (x, y))
    attrs = ", ".join(
        f"{name} = array<i64: {', '.join(map(str, v))}>"
        for name, v in (("kernel", kernel), ("strides", strides), ("padding", padding))
    )
    return f"""
func.func @main(%x: {x_t}) -> {y_t} {{
  %0 = "versa.{op}"(%x) {{{attrs}, layout = "{layout}"}} : ({x_t}) -> {y_t}
  return %0 : {y_t}
}}"""


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize("case", CASES)
def test_dynamic_pool(case: str, op: str, layout: str) -> None:
    _check(op, layout, case, "lower-to-llvm{threads=1}")


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_dynamic_batch_and_threads(layout: str) -> None:
    """A `?` batch, two threads (the forall where a call is large, one chunk where not), and
    16 channels: NHWC's channels in full vectors."""
    _check("avg_pool2d", layout, "3x3_s2_p1", "lower-to-llvm{threads=2}", batch=None, channels=16)
    _check("max_pool2d", layout, "3x3_s1_p1", "lower-to-llvm{threads=2}", batch=None, channels=40)


def test_x86_64_v3_lanes() -> None:
    """8-lane tiles (AVX2 code): the half tile is 4 lanes."""
    _check("max_pool2d", "NCHW", "3x3_s2_p1", "lower-to-llvm{threads=1 target=x86-64-v3}")
    _check("avg_pool2d", "NCHW", "one_sided_ceil", "lower-to-llvm{threads=1 target=x86-64-v3}")
