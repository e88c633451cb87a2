"""versa-int8-kernels' dot-product kernel (`cpu/kernels/int8_dot.py`) on a plain qconv2d's input
unpadded (`int8_dot_borders.py`): the zero-point padding no copy, border rows and pixel tiles
reading clamped indices and the fill word, interior tiles unchecked. Bit-exact against the
NumPy reference (`dialects/semantics_quant.py`).

Cases: 3x3 pad 1 at strides 1 and 2, ResNet's 7x7 stride-2 pad-3 stem, uneven and dilated
padding, odd sizes, C and F not multiples of the group or the panel, batch 2, a width with an
interior pixel loop; u8 and i8 activations; a weight zero point (the window sums read the
padded copy, so the kernel reads it too); a fused requantize on two threads. Each target runs
where this CPU can run its code."""

import dataclasses

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, targets
from versa.passes.cpu.int8_kernels import VersaInt8Kernels
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
TARGETS = {"v3": targets.resolve("x86-64-v3"), "v4": V4, "vnni": VNNI}
RNG = np.random.default_rng(4749)


def _t(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _const(name: str, array: np.ndarray, element: str) -> str:
    t, data = _t(array.shape, element), array.tobytes().hex().upper()
    return f'%{name} = "versa.constant"() {{value = dense<"0x{data}"> : {t}}} : () -> {t}'


def _conv(x_shape, window, filters, conv, element, zeros, requantize=False) -> str:
    """@main(x) of one qconv2d (`conv`: strides, dilations, padding) on random constant
    weights: its i32 result, or with a bias and a per-channel requantize after it, u8."""
    (n, h, w, c), (kh, kw), ((sh, sw), (dh, dw), pad) = x_shape, window, conv
    oh = (h + pad[0] + pad[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pad[1] + pad[3] - dw * (kw - 1) - 1) // sw + 1
    f = filters
    out, o8, xt = _t((n, oh, ow, f), "i32"), _t((n, oh, ow, f), "ui8"), _t(x_shape, element)
    wt, zt, ct = _t((kh, kw, c, f), "i8"), f"tensor<{element}>", f"tensor<{f}xi32>"
    attrs = (
        f'layout = "NHWC", groups = 1 : i64, strides = array<i64: {sh}, {sw}>, '
        f"dilations = array<i64: {dh}, {dw}>, padding = array<i64: {', '.join(map(str, pad))}>"
    )
    lines = [
        _const("w", RNG.integers(-128, 128, (kh, kw, c, f)).astype(np.int8), "i8"),
        f'%za = "versa.constant"() {{value = dense<{zeros[0]}> : {zt}}} : () -> {zt}',
        f'%zb = "versa.constant"() {{value = dense<{zeros[1]}> : tensor<i8>}} : () -> tensor<i8>',
        f'%0 = "versa.qconv2d"(%x, %w, %za, %zb) {{{attrs}}} : ({xt}, {wt}, {zt}, tensor<i8>) -> {out}',
    ]
    result, rt = ("%1", o8) if requantize else ("%0", out)
    if requantize:
        lines += [
            _const("b", RNG.integers(-3000, 3000, f).astype(np.int32), "i32"),
            f'%a = "versa.add"(%0, %b) : ({out}, {ct}) -> {out}',
            _const("s", RNG.uniform(2e-5, 2e-4, f).astype(np.float32), "f32"),
            f'%z = "versa.constant"() {{value = dense<5> : tensor<{f}xui8>}} : () -> tensor<{f}xui8>',
            f'%1 = "versa.requantize"(%a, %s, %z) {{axis = 3 : i64, min = 20 : i64}}'
            f" : ({out}, tensor<{f}xf32>, tensor<{f}xui8>) -> {o8}",
        ]
    body = "\n  ".join(lines)
    return f"func.func @main(%x: {xt}) -> {rt} {{\n  {body}\n  return {result} : {rt}\n}}"


PAD1 = (1, 1, 1, 1)
CASES = {  # x, window, filters, (strides, dilations, padding: top, left, bottom, right)
    "3x3": ((1, 14, 15, 19), (3, 3), 24, ((1, 1), (1, 1), PAD1)),
    "stride-2": ((1, 13, 11, 8), (3, 3), 20, ((2, 2), (1, 1), PAD1)),
    "stem-7x7": ((1, 23, 21, 3), (7, 7), 16, ((2, 2), (1, 1), (3, 3, 3, 3))),
    "batch-2-odd": ((2, 9, 17, 5), (3, 3), 33, ((1, 1), (1, 1), PAD1)),
    "uneven": ((1, 10, 12, 16), (3, 3), 8, ((1, 1), (1, 1), (2, 0, 0, 2))),
    "dilated": ((1, 12, 9, 8), (3, 3), 16, ((1, 1), (2, 2), (2, 2, 2, 2))),
    "interior": ((1, 28, 40, 12), (3, 3), 32, ((1, 1), (1, 1), PAD1)),
}


def _runnable(target: targets.Target) -> None:
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")


def _steps(target: targets.Target, threads: int) -> list:
    return [*VersaOptimize(target=target).steps(), *LowerToLLVM(target=target, threads=threads).steps()]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("element", "zeros"), [("ui8", (131, 0)), ("i8", (-7, 0)), ("ui8", (128, 3))])
@pytest.mark.parametrize("case", CASES)
def test_unpadded_conv_is_exact(target, element, zeros, case) -> None:
    _runnable(TARGETS[target])
    x_shape, window, filters, conv = CASES[case]
    text = _conv(x_shape, window, filters, conv, element, zeros)
    low, high = (0, 256) if element == "ui8" else (-128, 128)
    x = RNG.integers(low, high, x_shape).astype(np.uint8 if element == "ui8" else np.int8)
    (got,) = Compiled(text, _steps(TARGETS[target], 1)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("target", TARGETS)
def test_requantized_threaded_conv_is_exact(target) -> None:
    """The fused requantize in the kernel, two threads, the stem's borders."""
    _runnable(TARGETS[target])
    text = _conv((1, 30, 29, 3), (7, 7), 24, ((2, 2), (1, 1), (3, 3, 3, 3)), "ui8", (131, 0), True)
    x = RNG.integers(0, 256, (1, 30, 29, 3)).astype(np.uint8)
    (got,) = Compiled(text, _steps(TARGETS[target], 2)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("target", TARGETS)
def test_no_padded_copy(target) -> None:
    """Whatever the host: the caller makes no padded copy (no fill, no insert) where the
    activations' zero point is the only one; a weight zero point keeps it (the window sums)."""
    plain = _conv((1, 14, 15, 19), (3, 3), 24, ((1, 1), (1, 1), PAD1), "ui8", (131, 0))
    weight_zero = _conv((1, 14, 15, 19), (3, 3), 24, ((1, 1), (1, 1), PAD1), "ui8", (131, 3))
    steps = compiler.parse_pipeline("builtin.module(convert-versa-to-linalg,canonicalize,cse)")
    steps += [VersaInt8Kernels(target=TARGETS[target]), "canonicalize"]
    main = str(compiler.compile_text(plain, steps)).split("func.func @main")[1]
    assert "linalg.fill" not in main and "tensor.insert_slice" not in main, main
    assert "call @versa_int8_dot" in main
    kept = str(compiler.compile_text(weight_zero, steps)).split("func.func @main")[1]
    assert "tensor.insert_slice" in kept
