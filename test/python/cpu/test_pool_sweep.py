"""max_pool2d and avg_pool2d at every optimisation level, both layouts, on shapes chosen to
break the block decomposition of padded pooling (`passes/pool_regions.py`): padding on one
side only, padding larger than the stride, windows wider than the input (no interior block),
strides that leave the last input rows unread, and odd sizes.

The output is cut into border blocks (windows overlapping the padding, pooled from small padded
copies) and an interior block (pooled from a view of the input, at O2+ as a reduction over
reshaped views); a wrong cut shows up as a wrong or missing border pixel. Max pooling is
exact; average pooling divides by the count of real (unpadded) elements, compared with the
reference to a few ulps.

At O1+ an NCHW f32 pool is a separable vector kernel instead (`passes/pool_kernels.py`): tiles
of a vector of outputs along a row, border rows and tiles apart with the padding in lanes; the
last cases break its tiling (rows with a ragged tail, a window of one, windows wider than the
stride with padding on one side).
"""

import numpy as np
import pytest
from conftest import Compiled, reference

LEVELS = [
    "lower-to-llvm{opt-level=0}",
    "lower-to-llvm{opt-level=1}",
    "lower-to-llvm{opt-level=2}",
    "lower-to-llvm{opt-level=3 threads=2}",
]

# id: (N, C, H, W), kernel, strides, padding [top, left, bottom, right]
CASES = {
    "3x3_s2_p1": ((2, 3, 14, 15), (3, 3), (2, 2), (1, 1, 1, 1)),
    "2x2_s2": ((1, 4, 9, 8), (2, 2), (2, 2), (0, 0, 0, 0)),
    "one_sided": ((1, 2, 10, 11), (3, 2), (1, 2), (2, 0, 0, 1)),
    "pad_over_stride": ((1, 3, 7, 9), (5, 5), (1, 1), (2, 2, 2, 2)),
    "no_interior": ((1, 2, 3, 2), (3, 3), (2, 1), (1, 1, 1, 1)),
    "stride3_tail_unread": ((1, 5, 13, 16), (2, 3), (3, 3), (1, 0, 0, 1)),
    # At O2+ the blocks are reductions over views [.., O, s, ..] (`pool-views`): strides wider
    # than the kernel (taps masked), rows split into tiles of a divisor (70 → 35; C 80 → 40)
    # across threads, and rows with no divisor to tile by (134) left to the loops.
    "stride_over_kernel": ((1, 3, 11, 13), (2, 2), (3, 3), (0, 0, 0, 0)),
    "wide_rows_threads": ((2, 80, 20, 140), (3, 3), (2, 2), (1, 1, 1, 1)),
    "untileable_rows": ((1, 3, 6, 269), (2, 2), (2, 2), (0, 0, 0, 0)),
    # The NCHW kernels' tiles: 4 full tiles and a tail of 13 with border tiles at both ends,
    # a 1x1 window, a wide window with a wide stride, padding on the right and bottom only.
    "ragged_row_tiles": ((1, 2, 5, 77), (3, 3), (1, 1), (1, 1, 1, 1)),
    "window_of_one": ((1, 3, 6, 40), (1, 1), (1, 1), (0, 0, 0, 0)),
    "wide_window_stride4": ((1, 2, 30, 70), (7, 7), (4, 4), (3, 3, 3, 3)),
    "high_padding_only": ((2, 3, 9, 37), (3, 2), (2, 3), (0, 0, 2, 1)),
}


def _out(size: int, kernel: int, stride: int, before: int, after: int) -> int:
    return (size + before + after - kernel) // stride + 1


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
@pytest.mark.parametrize("case", CASES)
def test_pool2d(case: str, op: str, layout: str, pipeline: str) -> None:
    (n, c, h, w), kernel, strides, padding = CASES[case]
    oh = _out(h, kernel[0], strides[0], padding[0], padding[2])
    ow = _out(w, kernel[1], strides[1], padding[1], padding[3])
    shapes = ((n, c, h, w), (n, c, oh, ow)) if layout == "NCHW" else ((n, h, w, c), (n, oh, ow, c))
    x_t, y_t = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in shapes)
    attrs = ", ".join(
        f"{name} = array<i64: {', '.join(map(str, v))}>"
        for name, v in (("kernel", kernel), ("strides", strides), ("padding", padding))
    )
    text = f"""
func.func @main(%x: {x_t}) -> {y_t} {{
  %0 = "versa.{op}"(%x) {{{attrs}, layout = "{layout}"}} : ({x_t}) -> {y_t}
  return %0 : {y_t}
}}"""
    x = np.random.default_rng(h * w + c).standard_normal(shapes[0]).astype(np.float32)
    (got,) = Compiled(text, pipeline).jit(x)
    (want,) = reference(text, [x])
    assert got.shape == shapes[1]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("pipeline", LEVELS[1:])
def test_max_pool_propagates_nan(pipeline: str) -> None:
    """A NaN anywhere in a window makes its max NaN, as in PyTorch: the kernels' max may order
    -0 and +0 either way (`fastmath<nsz>`), but not drop a NaN."""
    x_t, y_t = "tensor<1x2x12x40xf32>", "tensor<1x2x6x20xf32>"
    text = f"""
func.func @main(%x: {x_t}) -> {y_t} {{
  %0 = "versa.max_pool2d"(%x) {{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                               padding = array<i64: 1, 1, 1, 1>}} : ({x_t}) -> {y_t}
  return %0 : {y_t}
}}"""
    x = np.random.default_rng(0).standard_normal((1, 2, 12, 40)).astype(np.float32)
    for at in [(0, 0, 0, 0), (0, 1, 5, 17), (0, 0, 11, 39), (0, 1, 6, 0)]:
        x[at] = np.nan
    (got,) = Compiled(text, pipeline).jit(x)
    (want,) = reference(text, [x])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(want).sum() >= 4
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
