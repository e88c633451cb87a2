"""An explicit pad before a quantized conv moved into the conv's zero-point padding
(passes/optimize/rules/quantized_pads.py), applied alone so nothing else changes the program:
the folded program gives the unfolded one's integers exactly in the NumPy reference (the padded
elements quantize to the conv's input zero point, which its padding reads). Refused where that
does not hold or the pad is read elsewhere; identity pads are dropped.
"""

import numpy as np
import pytest
from versa import compiler
from versa.context import make_context
from versa.passes.common.rewrite import apply_greedily
from versa.passes.optimize.rules import quantized_pads
from versa.reference import interpret
from versa.signature import find_function

RNG = np.random.default_rng(47)
W = RNG.integers(-128, 128, (4, 1, 3, 3)).astype(np.int8)  # depthwise, NCHW (F, C/G, KH, KW)


def _program(low=(0, 0, 1, 0), high=(0, 0, 1, 2), fill=0.0, k="dense<40.0> : tensor<f32>", extra="") -> str:
    """y → pad(low, high, fill) → · k → quantize(1, 7) → depthwise qconv2d(zx = 7), padding 1."""
    shape = [1, 4, 6, 6]
    padded = [s + lo + hi for s, lo, hi in zip(shape, low, high, strict=True)]
    n, oh, ow = padded[0], padded[2] + 2 - 2, padded[3] + 2 - 2
    p = "x".join(map(str, padded))
    k_type = k.split(" : ")[1]
    lows, highs = ", ".join(map(str, low)), ", ".join(map(str, high))
    return f"""
func.func @main(%y: tensor<1x4x6x6xf32>) -> (tensor<{n}x4x{oh}x{ow}xi32>{", " if extra else ""}{extra}) {{
  %p = "versa.pad"(%y) {{low = array<i64: {lows}>, high = array<i64: {highs}>, value = {fill} : f32}}
      : (tensor<1x4x6x6xf32>) -> tensor<{p}xf32>
  %k = "versa.constant"() {{value = {k}}} : () -> {k_type}
  %m = "versa.mul"(%p, %k) : (tensor<{p}xf32>, {k_type}) -> tensor<{p}xf32>
  %s = "versa.constant"() {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>
  %z = "versa.constant"() {{value = dense<7> : tensor<ui8>}} : () -> tensor<ui8>
  %q = "versa.quantize"(%m, %s, %z) : (tensor<{p}xf32>, tensor<f32>, tensor<ui8>) -> tensor<{p}xui8>
  %w = "versa.constant"() {{value = dense<{W.tolist()}> : tensor<4x1x3x3xi8>}} : () -> tensor<4x1x3x3xi8>
  %zw = "versa.constant"() {{value = dense<0> : tensor<i8>}} : () -> tensor<i8>
  %c = "versa.qconv2d"(%q, %w, %z, %zw) {{groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>}}
      : (tensor<{p}xui8>, tensor<4x1x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<{n}x4x{oh}x{ow}xi32>
  return %c{", %p" if extra else ""} : tensor<{n}x4x{oh}x{ow}xi32>{", " if extra else ""}{extra}
}}
"""


def _fold(text: str) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """(the folded program's text, its results, the unfolded program's) on one random input."""
    y = (RNG.standard_normal((1, 4, 6, 6)) * 0.1).astype(np.float32)
    unfolded = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    folded = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with folded.context:
        apply_greedily(folded.operation, quantized_pads.PATTERNS)
    want = interpret(find_function(unfolded, "main"), [y])
    return str(folded), interpret(find_function(folded, "main"), [y]), want


def test_pad_moves_into_the_conv_padding_exactly():
    """Pad H by (1, 1) and W by (0, 2) around conv padding 1: padding (2, 1, 2, 3), and the
    quantize reads y itself (4x6x6, not the padded 4x8x8)."""
    text, got, want = _fold(_program())
    assert '"versa.pad"' not in text and "padding = array<i64: 2, 1, 2, 3>" in text
    assert "(tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>" in text  # the mul on y
    assert np.array_equal(got[0], want[0]) and len(np.unique(want[0])) > 10


@pytest.mark.parametrize(
    "case",
    [
        {"fill": 0.5},  # 0.5 · 40 quantizes to 27, not the zero point 7
        {"low": (1, 0, 0, 0), "high": (0, 0, 0, 0)},  # a batch pad is no spatial padding
        {"k": "dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>"},  # per channel
        {"extra": "tensor<1x4x8x8xf32>"},  # the padded tensor is a result too
    ],
    ids=["fill", "batch", "per-channel-scale", "pad-read-elsewhere"],
)
def test_refused(case):
    text, got, want = _fold(_program(**case))
    assert '"versa.pad"' in text and "padding = array<i64: 1, 1, 1, 1>" in text
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_identity_pad_is_dropped():
    """pad(x) by nothing: x (it would hide the float epilogue from fold_requantize)."""
    text = _program(low=(0, 0, 0, 0), high=(0, 0, 0, 0), fill=0.5)  # nothing padded: any fill
    folded, got, want = _fold(text)
    assert '"versa.pad"' not in folded and np.array_equal(got[0], want[0])
