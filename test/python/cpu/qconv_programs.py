"""One NHWC qconv2d as a versa program, for the INT8 conv kernel tests (plain and depthwise):
random constant i8 weights, the activation's and the weights' zero points, and optionally an
i32 bias and a per-channel requantize clamped at 20 (a ReLU) after it. The targets those tests
name, and the pipeline they compile with."""

import dataclasses

import numpy as np
import pytest
from versa import targets
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
TARGETS = {"v3": targets.resolve("x86-64-v3"), "v4": V4, "vnni": VNNI}


def runnable(target: targets.Target) -> None:
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")


def compile_steps(target: targets.Target, threads: int) -> list:
    return [*VersaOptimize(target=target).steps(), *LowerToLLVM(target=target, threads=threads).steps()]


def tensor(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def constant(name: str, array: np.ndarray, element: str) -> str:
    t, data = tensor(array.shape, element), array.tobytes().hex().upper()
    return f'%{name} = "versa.constant"() {{value = dense<"0x{data}"> : {t}}} : () -> {t}'


def qconv(rng, x_shape, window, filters, conv, element, zeros, *, depthwise, requantize, scales) -> str:
    """@main(x) of one qconv2d (`conv`: strides, dilations, padding top, left, bottom, right)
    with `filters` output channels (`depthwise`: one per input channel, groups = C): its i32
    result, or with a bias and a requantize (scales drawn from `scales`) after it, u8."""
    (n, h, w, c), (kh, kw), ((sh, sw), (dh, dw), pad) = x_shape, window, conv
    oh = (h + pad[0] + pad[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pad[1] + pad[3] - dw * (kw - 1) - 1) // sw + 1
    f, weights = filters, (kh, kw, 1 if depthwise else c, filters)
    out, o8, xt = tensor((n, oh, ow, f), "i32"), tensor((n, oh, ow, f), "ui8"), tensor(x_shape, element)
    wt, zt, ct = tensor(weights, "i8"), f"tensor<{element}>", f"tensor<{f}xi32>"
    attrs = (
        f'layout = "NHWC", groups = {c if depthwise else 1} : i64, strides = array<i64: {sh}, {sw}>, '
        f"dilations = array<i64: {dh}, {dw}>, padding = array<i64: {', '.join(map(str, pad))}>"
    )
    lines = [
        constant("w", rng.integers(-128, 128, weights).astype(np.int8), "i8"),
        f'%za = "versa.constant"() {{value = dense<{zeros[0]}> : {zt}}} : () -> {zt}',
        f'%zb = "versa.constant"() {{value = dense<{zeros[1]}> : tensor<i8>}} : () -> tensor<i8>',
        f'%0 = "versa.qconv2d"(%x, %w, %za, %zb) {{{attrs}}} : ({xt}, {wt}, {zt}, tensor<i8>) -> {out}',
    ]
    result, rt = ("%1", o8) if requantize else ("%0", out)
    if requantize:
        lines += [
            constant("b", rng.integers(-3000, 3000, f).astype(np.int32), "i32"),
            f'%a = "versa.add"(%0, %b) : ({out}, {ct}) -> {out}',
            constant("s", rng.uniform(*scales, f).astype(np.float32), "f32"),
            f'%z = "versa.constant"() {{value = dense<5> : tensor<{f}xui8>}} : () -> tensor<{f}xui8>',
            f'%1 = "versa.requantize"(%a, %s, %z) {{axis = 3 : i64, min = 20 : i64}}'
            f" : ({out}, tensor<{f}xf32>, tensor<{f}xui8>) -> {o8}",
        ]
    body = "\n  ".join(lines)
    return f"func.func @main(%x: {xt}) -> {rt} {{\n  {body}\n  return {result} : {rt}\n}}"
