"""versa-int8-kernels' depthwise kernel (`cpu/kernels/int8_depthwise.py`): depthwise qconv2d
(NHWC, constant weights) on vpdpbusd (VNNI) and vpmaddwd (AVX-512BW, AVX2) over interleaved
input rows, bit-exact against the NumPy reference (`dialects/semantics_quant.py`).

Cases: strides 1 and 2, padding (also uneven), dilation, a 5x5 window, C not a multiple of the
lanes, widths no pixel tile divides, heights no row block divides, batch 2; the borders read in
the kernel from the unpadded input (`int8_borders.py`: border and interior row blocks, border
pixel tiles, overlapping channel blocks); u8 and i8
activations with zero points; the fused requantize epilogue; two threads (rows 28 wide and
more). Each target runs where this CPU can run its code."""

import dataclasses
import re

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, targets
from versa.passes.cpu.int8_kernels import isa_of
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize
from versa.translate import emit_assembly

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
TARGETS = {"v3": targets.resolve("x86-64-v3"), "v4": V4, "vnni": VNNI}
RNG = np.random.default_rng(4748)


def _t(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _const(name: str, array: np.ndarray, element: str) -> str:
    t, data = _t(array.shape, element), array.tobytes().hex().upper()
    return f'%{name} = "versa.constant"() {{value = dense<"0x{data}"> : {t}}} : () -> {t}'


def _depthwise(x_shape, window, conv, element: str, zeros, requantize: bool = False) -> str:
    """@main(x) of one depthwise qconv2d (`conv`: strides, dilations, padding) on random
    constant weights: its i32 result, or with an i32 bias and a per-channel requantize clamped
    at 20 (a ReLU) after it, u8."""
    (n, h, w, c), (kh, kw), ((sh, sw), (dh, dw), pad) = x_shape, window, conv
    oh = (h + pad[0] + pad[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pad[1] + pad[3] - dw * (kw - 1) - 1) // sw + 1
    out, o8, xt = _t((n, oh, ow, c), "i32"), _t((n, oh, ow, c), "ui8"), _t(x_shape, element)
    wt, zt, ct = _t((kh, kw, 1, c), "i8"), f"tensor<{element}>", f"tensor<{c}xi32>"
    attrs = (
        f'layout = "NHWC", groups = {c} : i64, strides = array<i64: {sh}, {sw}>, '
        f"dilations = array<i64: {dh}, {dw}>, padding = array<i64: {', '.join(map(str, pad))}>"
    )
    lines = [
        _const("w", RNG.integers(-128, 128, (kh, kw, 1, c)).astype(np.int8), "i8"),
        f'%za = "versa.constant"() {{value = dense<{zeros[0]}> : {zt}}} : () -> {zt}',
        f'%zb = "versa.constant"() {{value = dense<{zeros[1]}> : tensor<i8>}} : () -> tensor<i8>',
        f'%0 = "versa.qconv2d"(%x, %w, %za, %zb) {{{attrs}}} : ({xt}, {wt}, {zt}, tensor<i8>) -> {out}',
    ]
    result, rt = ("%1", o8) if requantize else ("%0", out)
    if requantize:
        lines += [
            _const("b", RNG.integers(-3000, 3000, c).astype(np.int32), "i32"),
            f'%a = "versa.add"(%0, %b) : ({out}, {ct}) -> {out}',
            _const("s", RNG.uniform(2e-4, 2e-3, c).astype(np.float32), "f32"),
            f'%z = "versa.constant"() {{value = dense<5> : tensor<{c}xui8>}} : () -> tensor<{c}xui8>',
            f'%1 = "versa.requantize"(%a, %s, %z) {{axis = 3 : i64, min = 20 : i64}}'
            f" : ({out}, tensor<{c}xf32>, tensor<{c}xui8>) -> {o8}",
        ]
    body = "\n  ".join(lines)
    return f"func.func @main(%x: {xt}) -> {rt} {{\n  {body}\n  return {result} : {rt}\n}}"


PAD1 = (1, 1, 1, 1)
CASES = {  # x, window, (strides, dilations, padding: top, left, bottom, right)
    "3x3": ((1, 28, 28, 32), (3, 3), ((1, 1), (1, 1), PAD1)),
    "stride-2": ((1, 11, 13, 48), (3, 3), ((2, 2), (1, 1), PAD1)),
    "uneven": ((2, 8, 7, 20), (3, 3), ((2, 2), (1, 1), (0, 0, 1, 1))),
    "dilated": ((1, 12, 9, 16), (3, 3), ((1, 1), (2, 1), (2, 1, 2, 1))),
    "5x5": ((1, 7, 19, 8), (5, 5), ((1, 1), (1, 1), (2, 2, 2, 2))),
    "narrow": ((1, 3, 2, 5), (3, 3), ((1, 1), (1, 1), PAD1)),
    # Borders read in the kernel (no padded copy): border and interior row blocks, a pixel
    # loop between border tiles, channel blocks overlapping where the lanes do not divide C.
    "5x5-stride-2": ((1, 15, 13, 24), (5, 5), ((2, 2), (1, 1), (2, 2, 2, 2))),
    "odd-channels": ((1, 9, 11, 21), (3, 3), ((1, 1), (1, 1), PAD1)),
    "interior": ((1, 20, 37, 40), (3, 3), ((1, 1), (1, 1), PAD1)),
    "stride-2-odd": ((1, 17, 15, 36), (3, 3), ((2, 2), (1, 1), PAD1)),
    "uneven-borders": ((1, 10, 12, 16), (3, 3), ((1, 1), (1, 1), (2, 0, 0, 2))),
}


def _runnable(target: targets.Target) -> None:
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")


def _steps(target: targets.Target, threads: int) -> list:
    return [*VersaOptimize(target=target).steps(), *LowerToLLVM(target=target, threads=threads).steps()]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("element", "zeros"), [("ui8", (131, 0)), ("i8", (-7, 3)), ("ui8", (0, 0))])
@pytest.mark.parametrize("case", CASES)
def test_depthwise_is_exact(target, element, zeros, case) -> None:
    _runnable(TARGETS[target])
    x_shape, window, conv = CASES[case]
    text = _depthwise(x_shape, window, conv, element, zeros)
    low, high = (0, 256) if element == "ui8" else (-128, 128)
    x = RNG.integers(low, high, x_shape).astype(np.uint8 if element == "ui8" else np.int8)
    (got,) = Compiled(text, _steps(TARGETS[target], 1)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("target", TARGETS)
def test_requantized_depthwise_is_exact(target, threads) -> None:
    """The fused per-channel requantize computed in the kernel (u8 out)."""
    _runnable(TARGETS[target])
    text = _depthwise((1, 9, 11, 24), (3, 3), ((1, 1), (1, 1), PAD1), "ui8", (131, 0), True)
    x = RNG.integers(0, 256, (1, 9, 11, 24)).astype(np.uint8)
    (got,) = Compiled(text, _steps(TARGETS[target], threads)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


THREADED = {  # rows wide enough for a pixel loop of several trips and a rest tile after it
    "28x28": ((1, 28, 28, 32), ((1, 1), (1, 1), PAD1)),
    "56x56-stride-2": ((1, 56, 56, 24), ((2, 2), (1, 1), (0, 0, 1, 1))),
    "batch-2": ((2, 30, 29, 40), ((1, 1), (1, 1), PAD1)),
    "channels-36": ((1, 29, 31, 36), ((2, 2), (1, 1), PAD1)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", THREADED)
def test_threaded_depthwise_is_exact(target, case) -> None:
    """Two threads (OpenMP over channel blocks, images and row blocks), requantized: the
    kernel's calls outside its pixel loop once kept the OpenMP body's alloca_scope, which
    convert-scf-to-cf cannot take (versa-inline-alloca-scopes). The intrinsic inside OpenMP
    code: the kernel ran threaded, not the portable path."""
    _runnable(TARGETS[target])
    x_shape, conv = THREADED[case]
    text = _depthwise(x_shape, (3, 3), conv, "ui8", (131, 0), True)
    steps = _steps(TARGETS[target], 2)
    lowered = str(compiler.compile_text(text, steps))
    assert "omp." in lowered and isa_of(TARGETS[target]).intrinsic in lowered
    x = RNG.integers(0, 256, x_shape).astype(np.uint8)
    (got,) = Compiled(text, steps).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize(
    ("target", "instruction"), [("vnni", "vpdpbusd"), ("v4", "vpmaddwd"), ("v3", "vpmaddwd")]
)
def test_depthwise_takes_the_dot_instruction(target, instruction) -> None:
    """Whatever the host: the target's instruction, and no vpmulld (the portable path's)."""
    text = _depthwise((1, 16, 16, 64), (3, 3), ((1, 1), (1, 1), PAD1), "ui8", (128, 0))
    module = compiler.compile_text(
        text, list(LowerToLLVM(target=TARGETS[target], threads=1, standalone=True).steps())
    )
    assembly = emit_assembly(module.operation, TARGETS[target])
    assert len(re.findall(rf"\b{instruction}\b", assembly)) >= 6
    assert not re.search(r"\bvpmulld\b", assembly)
