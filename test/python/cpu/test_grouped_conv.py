"""Grouped and depthwise conv2d at opt-levels 2 and 3 against torch.nn.functional.conv2d.

Grouped convs (1 < groups < C) run as one loop over (image, output row, group) around a named
conv per group (window_builders.conv_per_group, codegen/grouped_conv.py); depthwise NHWC convs
fuse the output fill into each row (codegen/depthwise.py). The cases cover groups of 2, 4, C/4
and C, channel multipliers (F = 2C), strides 1 and 2, dilation, asymmetric padding, odd sizes,
filters per group that leave partial vectors, batches of 1 and 2, both layouts.

Tolerance: inputs are uniform in [-1, 1) and the reference is computed in float64, so a float32
sum of K = C/groups * KH * KW products is off by at most about K * 2^-24 * K in the worst case;
atol = 1e-6 * K (plus rtol 1e-5) holds with a wide margin and still catches a wrong tap, channel
or group (an error of order 1).
"""

import numpy as np
import pytest
import torch
import versa
from conftest import Compiled

LEVELS = ["lower-to-llvm{opt-level=2}", "lower-to-llvm{opt-level=3 threads=2}"]

# id: (N, C, H, W), (F, KH, KW), strides, padding [top, left, bottom, right], dilations, groups
CASES = {
    "g2": ((1, 8, 9, 11), (8, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 2),
    "g4_s2_batch2": ((2, 16, 10, 9), (12, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 4),
    "g_c4_dilation2": ((1, 24, 8, 9), (24, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2], 6),
    "g16_fg4_odd": ((1, 64, 7, 7), (64, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 16),
    "g2_fg3_1x3_s12": ((1, 8, 6, 11), (6, 1, 3), [1, 2], [0, 1, 0, 2], [1, 1], 2),
    "g4_nopad_s2_odd": ((2, 12, 9, 7), (8, 3, 2), [2, 2], [0, 0, 0, 0], [1, 1], 4),
    "g4_wide_rows": ((1, 8, 5, 36), (8, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 4),  # stays NCHW
    "g65_fg1": ((1, 130, 3, 3), (65, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1], 65),  # one filter per group
    "g96_multiplier2": ((1, 96, 6, 7), (192, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 96),  # many groups
    "depthwise_3x3": ((1, 20, 9, 13), (20, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 20),
    "depthwise_5x3_s2_batch2": ((2, 19, 11, 10), (19, 5, 3), [2, 2], [2, 1, 2, 1], [1, 1], 19),
    "depthwise_dilation2": ((1, 33, 10, 10), (33, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2], 33),
    "depthwise_one_row": ((1, 16, 3, 9), (16, 3, 3), [1, 1], [0, 1, 0, 1], [1, 1], 16),
    "depthwise_1x1_s2_padded": (
        (1, 16, 40, 40),
        (16, 1, 1),
        [2, 2],
        [1, 1, 2, 2],
        [1, 1],
        16,
    ),  # rows of padding only
    "multiplier2": ((1, 6, 8, 8), (12, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 6),
    "multiplier2_s2_batch2": ((2, 5, 9, 7), (10, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 5),
}


def _out(size: int, kernel: int, stride: int, before: int, after: int, dilation: int) -> int:
    return (size + before + after - dilation * (kernel - 1) - 1) // stride + 1


def _case(case: str, layout: str, epilogue: bool = False) -> tuple[str, list[np.ndarray], np.ndarray, int]:
    """The conv2d as versa text in `layout` (+ bias and relu when `epilogue`), its inputs, the
    torch result (float64, in `layout`) and the reduction length."""
    (n, c, h, w), (f, kh, kw), strides, padding, dilations, groups = CASES[case]
    oh = _out(h, kh, strides[0], padding[0], padding[2], dilations[0])
    ow = _out(w, kw, strides[1], padding[1], padding[3], dilations[1])
    rng = np.random.default_rng(sum((n, c, h, w, f)))
    x = rng.uniform(-1, 1, (n, c, h, w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (f, c // groups, kh, kw)).astype(np.float32)
    bias = rng.uniform(-1, 1, (f,)).astype(np.float32)
    top, left, bottom, right = padding
    xp = torch.nn.functional.pad(torch.from_numpy(x).double(), (left, right, top, bottom))
    y = torch.nn.functional.conv2d(
        xp, torch.from_numpy(wt).double(), stride=strides, dilation=dilations, groups=groups
    )
    if epilogue:
        y = torch.relu(y + torch.from_numpy(bias).double()[:, None, None])
    want = y.numpy()
    if layout == "NCHW":
        shapes, inputs = [(n, c, h, w), wt.shape, (n, f, oh, ow), (f, 1, 1)], [x, wt, bias[:, None, None]]
    else:
        shapes = [(n, h, w, c), (kh, kw, c // groups, f), (n, oh, ow, f), (f,)]
        inputs = [x.transpose(0, 2, 3, 1).copy(), wt.transpose(2, 3, 1, 0).copy(), bias]
        want = want.transpose(0, 2, 3, 1)
    x_t, w_t, y_t, b_t = (f"tensor<{'x'.join(map(str, s))}xf32>" for s in shapes)
    attrs = ", ".join(
        f"{name} = array<i64: {', '.join(map(str, v))}>"
        for name, v in (("strides", strides), ("padding", padding), ("dilations", dilations))
    )
    attrs += f', groups = {groups} : i64, layout = "{layout}"'
    conv = f'"versa.conv2d"(%x, %w) {{{attrs}}} : ({x_t}, {w_t}) -> {y_t}'
    if epilogue:
        text = f"""func.func @main(%x: {x_t}, %w: {w_t}, %b: {b_t}) -> {y_t} {{
  %0 = {conv}
  %1 = "versa.add"(%0, %b) : ({y_t}, {b_t}) -> {y_t}
  %2 = "versa.relu"(%1) : ({y_t}) -> {y_t}
  return %2 : {y_t}
}}"""
    else:
        text = f"func.func @main(%x: {x_t}, %w: {w_t}) -> {y_t} {{\n  %0 = {conv}\n  return %0 : {y_t}\n}}"
        inputs = inputs[:2]
    return text, inputs, want, (c // groups) * kh * kw


def _check(text: str, inputs: list[np.ndarray], want: np.ndarray, reduction: int, pipeline: str) -> None:
    (got,) = Compiled(text, pipeline).jit(*inputs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * reduction)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES)
def test_grouped_conv(case: str, layout: str, pipeline: str) -> None:
    _check(*_case(case, layout), pipeline)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", ["g4_s2_batch2", "g16_fg4_odd", "depthwise_3x3", "multiplier2"])
def test_grouped_conv_epilogue(case: str, layout: str) -> None:
    """With a bias and relu fused after the conv (versa-fuse): the group loop's result is the
    epilogue's input; a depthwise conv takes conv_epilogue's row fusion instead."""
    _check(*_case(case, layout, epilogue=True), "versa-fuse,lower-to-llvm{opt-level=3 threads=2}")


@pytest.mark.parametrize(("case", "kept"), [("g4_wide_rows", True), ("g2", False), ("depthwise_3x3", False)])
def test_layout_keeps_wide_grouped_nchw(case: str, kept: bool) -> None:
    """versa-layout leaves a graph whose only convs are grouped NCHW convs with rows of two
    vectors or more in NCHW (no transposes); narrow rows and depthwise convs go NHWC."""
    text = _case(case, "NCHW")[0]
    out = str(versa.compile_text(text, "versa-layout"))
    assert ('layout = "NHWC"' not in out) == kept


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("padding", [0, 1])
def test_depthwise_of_concat(padding: int, pipeline: str) -> None:
    """A depthwise conv of a concat (tensor.insert_slice, like a padded copy): the unpadded
    input is read as it is, the padded one split into interior and borders."""
    a_t, x_t, w_t = "tensor<1x5x12x16xf32>", "tensor<1x12x12x16xf32>", "tensor<3x3x1x16xf32>"
    out = 12 + 2 * padding - 2
    y_t = f"tensor<1x{out}x{out}x16xf32>"
    pad = ", ".join([str(padding)] * 4)
    text = f"""func.func @main(%a: {a_t}, %b: tensor<1x7x12x16xf32>, %w: {w_t}) -> {y_t} {{
  %x = "versa.concat"(%a, %b) {{axis = 1 : i64}} : ({a_t}, tensor<1x7x12x16xf32>) -> {x_t}
  %y = "versa.conv2d"(%x, %w) {{groups = 16 : i64, layout = "NHWC", padding = array<i64: {pad}>}}
    : ({x_t}, {w_t}) -> {y_t}
  return %y : {y_t}
}}"""
    rng = np.random.default_rng(padding)
    a, b, w = (
        rng.uniform(-1, 1, s).astype(np.float32) for s in ((1, 5, 12, 16), (1, 7, 12, 16), (3, 3, 1, 16))
    )
    x = torch.from_numpy(np.concatenate([a, b], axis=1)).double().permute(0, 3, 1, 2)
    weight = torch.from_numpy(w).double().permute(3, 2, 0, 1)
    want = torch.nn.functional.conv2d(x, weight, padding=padding, groups=16).permute(0, 2, 3, 1).numpy()
    (got,) = Compiled(text, pipeline).jit(a, b, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * 9)
