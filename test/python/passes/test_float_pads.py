"""An explicit zero pad before a conv2d moved into the conv's padding
(passes/optimize/rules/float_pads.py): exact in the NumPy reference (the rule alone, results
bit-identical), and the compiled MobileNetV2 block it serves (expand 1x1 + ReLU6, TF "same"
pad, depthwise 3x3 + bias + ReLU6, strides 1 and 2) against the reference, on images large
enough that the depthwise conv reads its interior in place and on small ones it copies whole.
scripts/test.sh runs this file for x86-64-v3 code too (test/python/cross_isa.txt).
"""

import numpy as np
import pytest
from conftest import Compiled
from versa import compiler
from versa.context import make_context
from versa.passes.common.rewrite import apply_greedily
from versa.passes.optimize.rules import float_pads
from versa.reference import interpret
from versa.signature import find_function

RNG = np.random.default_rng(44)


def _tensor(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def _ints(values) -> str:
    return ", ".join(map(str, values))


def _conv_of_pad(layout: str, low, high, padding, strides, transpose: bool = False) -> tuple[str, list]:
    """pad(x) [→ transpose NCHW→NHWC] → depthwise 3x3 conv2d; the text and its input shapes."""
    c, h, w = 4, 7, 6
    x = [1, c, h, w] if layout == "NCHW" or transpose else [1, h, w, c]
    p = [s + lo + hi for s, lo, hi in zip(x, low, high, strict=True)]
    conv_in = [p[0], p[2], p[3], p[1]] if transpose else p
    hd, wd = (2, 3) if layout == "NCHW" else (1, 2)
    oh = (conv_in[hd] + padding[0] + padding[2] - 3) // strides[0] + 1
    ow = (conv_in[wd] + padding[1] + padding[3] - 3) // strides[1] + 1
    wt, y = ([c, 1, 3, 3], [1, c, oh, ow]) if layout == "NCHW" else ([3, 3, 1, c], [1, oh, ow, c])
    tx, tp, tc, tw, ty = map(_tensor, (x, p, conv_in, wt, y))
    lines = [
        f"func.func @main(%x: {tx}, %w: {tw}) -> {ty} {{",
        f'  %p = "versa.pad"(%x) {{low = array<i64: {_ints(low)}>, high = array<i64: {_ints(high)}>}}',
        f"    : ({tx}) -> {tp}",
    ]
    if transpose:
        lines.append(f'  %t = "versa.transpose"(%p) {{perm = array<i64: 0, 2, 3, 1>}} : ({tp}) -> {tc}')
    attrs = f'groups = {c} : i64, layout = "{layout}", padding = array<i64: {_ints(padding)}>'
    lines += [
        f'  %y = "versa.conv2d"({"%t" if transpose else "%p"}, %w)',
        f"    {{{attrs}, strides = array<i64: {_ints(strides)}>}} : ({tc}, {tw}) -> {ty}",
        f"  return %y : {ty}",
        "}",
    ]
    return "\n".join(lines), [x, wt]


FOLDS = {  # id: layout, pad low, pad high, the conv's own padding, strides, through a transpose
    "nchw_tf_same_s2": ("NCHW", (0, 0, 0, 0), (0, 0, 1, 1), (0, 0, 0, 0), (2, 2), False),
    "nchw_s1_onto_padding": ("NCHW", (0, 0, 1, 2), (0, 0, 1, 0), (1, 0, 0, 1), (1, 1), False),
    "nhwc_tf_same_s1": ("NHWC", (0, 1, 1, 0), (0, 1, 1, 0), (0, 0, 0, 0), (1, 1), False),
    "through_transpose": ("NHWC", (0, 0, 0, 0), (0, 0, 1, 1), (0, 0, 0, 0), (2, 2), True),
}


@pytest.mark.parametrize("case", FOLDS)
def test_fold_is_exact(case: str) -> None:
    """The rule alone: no pad left, and the folded program's results equal the unfolded one's
    bit for bit in the reference interpreter."""
    text, shapes = _conv_of_pad(*FOLDS[case])
    unfolded = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    folded = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    with folded.context:
        apply_greedily(folded.operation, float_pads.PATTERNS)
    assert '"versa.pad"' not in str(folded)
    inputs = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    (want,) = interpret(find_function(unfolded, "main"), inputs)
    (got,) = interpret(find_function(folded, "main"), inputs)
    np.testing.assert_array_equal(got, want)


def _block(size: int, channels: int, stride: int) -> tuple[str, list]:
    """MobileNetV2's inverted-residual front, NCHW as torch gives it: 1x1 expand + bias + ReLU6,
    TF "same" pad (1 each side at stride 1; 0 before, 1 after at stride 2), depthwise 3x3 +
    bias + ReLU6."""
    c, e, h = 8, channels, size
    lo, hi = (1, 1) if stride == 1 else (0, 1)
    ph = h + lo + hi
    oh = (ph - 3) // stride + 1
    x, we, b, wd = [1, c, h, h], [e, c, 1, 1], [1, e, 1, 1], [e, 1, 3, 3]
    tx, twe, tb, twd = map(_tensor, (x, we, b, wd))
    te, tp, ty = _tensor([1, e, h, h]), _tensor([1, e, ph, ph]), _tensor([1, e, oh, oh])
    relu6 = '"versa.clamp"({}) {{min = 0.0 : f32, max = 6.0 : f32}}'
    text = f"""func.func @main(%x: {tx}, %we: {twe}, %be: {tb}, %wd: {twd}, %bd: {tb}) -> {ty} {{
  %0 = "versa.conv2d"(%x, %we) : ({tx}, {twe}) -> {te}
  %1 = "versa.add"(%0, %be) : ({te}, {tb}) -> {te}
  %2 = {relu6.format("%1")} : ({te}) -> {te}
  %3 = "versa.pad"(%2) {{low = array<i64: 0, 0, {lo}, {lo}>, high = array<i64: 0, 0, {hi}, {hi}>}}
    : ({te}) -> {tp}
  %4 = "versa.conv2d"(%3, %wd) {{groups = {e} : i64, strides = array<i64: {stride}, {stride}>}}
    : ({tp}, {twd}) -> {ty}
  %5 = "versa.add"(%4, %bd) : ({ty}, {tb}) -> {ty}
  %6 = {relu6.format("%5")} : ({ty}) -> {ty}
  return %6 : {ty}
}}"""
    return text, [x, we, b, wd, b]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size, channels", [(20, 40), (5, 24)])  # borders split off; copied whole
@pytest.mark.parametrize("stride", [1, 2])
def test_mobilenet_block_numerics(size: int, channels: int, stride: int, threads: int) -> None:
    """Compiled through versa-optimize (the pad folds) against the unoptimised reference:
    f32 sums of 8 and 9 terms, so a tolerance of a few ulps of the output's scale."""
    text, shapes = _block(size, channels, stride)
    compiled = Compiled(text, f"versa-optimize,lower-to-llvm{{opt-level=3 threads={threads}}}")
    inputs = [RNG.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    (got,) = compiled.jit(*inputs)
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    (want,) = interpret(find_function(module, "main"), inputs)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
