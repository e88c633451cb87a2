"""conv2d at every optimisation level, both layouts, on shapes chosen to break the conv
strategy's tiling: 3x3 with padding, a 7x7 stride-2 stem with C=3, 1x1, dilation, odd spatial
sizes that leave partial register tiles, a batch of 2, depthwise convs (their own linalg op and
strategy), a grouped conv and a channel multiplier.

The strategy peels partial output tiles and cuts the window into kh, kw and c steps; an
off-by-one there shows up as a wrong pixel, filter or channel. Inputs are small integers
stored as floats, so every partial sum is exact in f32 and the comparison with the reference
interpreter can be exact up to a tolerance scaled with the reduction length C·KH·KW.
"""

import numpy as np
import pytest
from conftest import Compiled, reference

LEVELS = ["lower-to-llvm{opt-level=0}", "lower-to-llvm{opt-level=2}", "lower-to-llvm{opt-level=3 threads=2}"]

# id: (N, C, H, W), (F, KH, KW), strides, padding [top, left, bottom, right], dilations[, groups]
CASES = {
    "3x3_pad1": ((1, 8, 10, 12), (16, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1]),
    "7x7_s2_c3": ((1, 3, 21, 19), (40, 7, 7), [2, 2], [3, 3, 3, 3], [1, 1]),
    "1x1": ((1, 20, 6, 10), (36, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1]),
    "1x1_batch2": ((2, 24, 5, 7), (40, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1]),  # NHWC: a matmul
    "dilation2": ((1, 6, 11, 13), (8, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2]),
    "odd_5x9x11": ((1, 5, 9, 11), (7, 3, 2), [1, 2], [1, 0, 1, 1], [1, 1]),
    "batch2": ((2, 4, 7, 9), (35, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1]),
    "stride_skips_rows": ((1, 3, 2, 8), (4, 1, 1), [2, 3], [0, 0, 0, 0], [1, 1]),  # rows/cols unread
    "1x1_s2_batch2": ((2, 24, 9, 8), (40, 1, 1), [2, 2], [0, 0, 0, 0], [1, 1]),  # NHWC: gather, matmul
    # Depthwise (linalg.depthwise_conv_2d_*): channels that leave partial vectors, strides,
    # dilation; then grouped convs (a named conv per group) and a channel multiplier of 2.
    "depthwise_3x3": ((1, 40, 9, 11), (40, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 40),
    "depthwise_s2_odd": ((2, 19, 13, 10), (19, 5, 3), [2, 2], [2, 1, 2, 1], [1, 1], 19),
    "depthwise_dilation2": ((1, 16, 12, 12), (16, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2], 16),
    "grouped_4": ((1, 8, 7, 9), (12, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 4),
    "grouped_16_s2": ((1, 32, 9, 10), (48, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 16),  # a conv per group
    "multiplier_2": ((1, 6, 8, 8), (12, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 6),
}


def _ints(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(np.float32)


def _out(size: int, kernel: int, stride: int, before: int, after: int, dilation: int) -> int:
    return (size + before + after - dilation * (kernel - 1) - 1) // stride + 1


def _conv(case: str, layout: str, epilogue: bool) -> tuple[str, list[np.ndarray], tuple[int, ...], int]:
    """The case's conv2d as a function (with a bias + relu + residual-add epilogue when
    `epilogue`), seeded integer inputs, the output shape and the reduction length."""
    (n, c, h, w), (f, kh, kw), strides, padding, dilations, *grouping = CASES[case]
    groups = grouping[0] if grouping else 1
    oh = _out(h, kh, strides[0], padding[0], padding[2], dilations[0])
    ow = _out(w, kw, strides[1], padding[1], padding[3], dilations[1])
    if layout == "NCHW":
        shapes = (n, c, h, w), (f, c // groups, kh, kw), (n, f, oh, ow), (f, 1, 1)
    else:
        shapes = (n, h, w, c), (kh, kw, c // groups, f), (n, oh, ow, f), (f,)
    x_t, w_t, y_t, b_t = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in shapes)
    attrs = ", ".join(
        f"{name} = array<i64: {', '.join(map(str, v))}>"
        for name, v in (("strides", strides), ("padding", padding), ("dilations", dilations))
    )
    conv = f"""%0 = "versa.conv2d"(%x, %w) {{{attrs}, groups = {groups} : i64, layout = "{layout}"}}
      : ({x_t}, {w_t}) -> {y_t}"""
    rng = np.random.default_rng(sum(shapes[0]) + f)
    inputs = [_ints(rng, shapes[0]), _ints(rng, shapes[1])]
    if not epilogue:
        text = f"func.func @main(%x: {x_t}, %w: {w_t}) -> {y_t} {{\n  {conv}\n  return %0 : {y_t}\n}}"
        return text, inputs, shapes[2], (c // groups) * kh * kw
    text = f"""
func.func @main(%x: {x_t}, %w: {w_t}, %b: {b_t}, %r: {y_t}) -> {y_t} {{
  {conv}
  %1 = "versa.add"(%0, %b) : ({y_t}, {b_t}) -> {y_t}
  %2 = "versa.relu"(%1) : ({y_t}) -> {y_t}
  %3 = "versa.add"(%2, %r) : ({y_t}, {y_t}) -> {y_t}
  return %3 : {y_t}
}}"""
    return text, [*inputs, _ints(rng, shapes[3]), _ints(rng, shapes[2])], shapes[2], (c // groups) * kh * kw


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES)
def test_conv2d(case: str, layout: str, pipeline: str) -> None:
    text, inputs, shape, reduction = _conv(case, layout, epilogue=False)
    (got,) = Compiled(text, pipeline).jit(*inputs)
    (want,) = reference(text, inputs)
    assert got.shape == shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * reduction)


@pytest.mark.parametrize("pipeline", [f"versa-fuse,{level}" for level in LEVELS[1:]])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_epilogue(case: str, layout: str, pipeline: str) -> None:
    """The fused epilogue (bias, relu, residual add) computed on each output row of the conv
    (codegen/conv_epilogue.py): partial register tiles, ragged rows, threads."""
    text, inputs, shape, reduction = _conv(case, layout, epilogue=True)
    (got,) = Compiled(text, pipeline).jit(*inputs)
    (want,) = reference(text, inputs)
    assert got.shape == shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * reduction)


@pytest.mark.parametrize("pipeline", LEVELS)
def test_conv_chain_shared_fill(pipeline: str) -> None:
    """Two equal convolutions (cse merges their zero fills into one) with a relu between."""
    x_t, w_t = "tensor<1x6x7x9xf32>", "tensor<6x6x3x3xf32>"
    text = f"""
func.func @main(%x: {x_t}, %w1: {w_t}, %w2: {w_t}) -> {x_t} {{
  %0 = "versa.conv2d"(%x, %w1) {{padding = array<i64: 1, 1, 1, 1>}} : ({x_t}, {w_t}) -> {x_t}
  %1 = "versa.relu"(%0) : ({x_t}) -> {x_t}
  %2 = "versa.conv2d"(%1, %w2) {{padding = array<i64: 1, 1, 1, 1>}} : ({x_t}, {w_t}) -> {x_t}
  return %2 : {x_t}
}}"""
    rng = np.random.default_rng(3)
    inputs = [_ints(rng, (1, 6, 7, 9)), _ints(rng, (6, 6, 3, 3)), _ints(rng, (6, 6, 3, 3))]
    (got,) = Compiled(text, pipeline).jit(*inputs)
    (want,) = reference(text, inputs)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * (6 * 9) ** 2)
