"""INT8 epilogues fused with their contraction: versa-fuse groups a qconv2d / qmatmul with the
chain after it (i32 bias, per-channel requantize with a ReLU's clamp; or a float epilogue with a
residual's dequantize, ReLU and the quantize), convert-versa-to-linalg makes the chain one
generic that also subtracts the zero-point terms, and versa-int8-kernels computes that generic
on each accumulator vector: the kernel writes the 8-bit output, no i32 tensor of the layer.

Bit-exact against the NumPy reference (`dialects/semantics_quant.py`): the integer ops are
exact, and the float ones are the reference's, in its order, in f32 (no contraction into FMAs).
Targets: `x86-64-v4` with `avx512vnni` (vpdpbusd) and `x86-64-v4` (vpmaddwd), each where this
CPU runs it; `x86-64` (no kernel: the portable path, the conv epilogue strategy) always.
"""

import dataclasses

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, targets
from versa.compiler import Chunk, parse_module
from versa.context import make_context
from versa.passes.cpu.int8_kernels import VersaInt8Kernels
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
TARGETS = {"vnni": VNNI, "v4": V4, "portable": targets.resolve("x86-64")}
RNG = np.random.default_rng(4747)


def _t(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>" if shape else f"tensor<{element}>"


def _const(name: str, array: np.ndarray, element: str) -> str:
    t = _t(array.shape, element)
    data = f'"0x{array.tobytes().hex().upper()}"' if array.ndim else str(array.item())
    return f'%{name} = "versa.constant"() {{value = dense<{data}> : {t}}} : () -> {t}'


def _contraction(kind: str, x_shape, f: int, zb: int) -> tuple[list[str], tuple, str]:
    """Lines of a qconv2d (3x3, padding 1, NHWC) or qmatmul of %x (ui8, zero point 131) on
    constant i8 weights (zero point `zb`): the lines, the result shape, the result's name."""
    c = x_shape[-1]
    w_shape = (3, 3, c, f) if kind == "qconv2d" else (c, f)
    lines = [
        _const("w", RNG.integers(-128, 128, w_shape).astype(np.int8), "i8"),
        _const("za", np.array(131, np.uint8), "ui8"),
        _const("zb", np.array(zb, np.int8), "i8"),
    ]
    out = (*x_shape[:-1], f)
    attrs = (
        '{dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", '
        "padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}"
        if kind == "qconv2d"
        else ""
    )
    types = f"{_t(x_shape, 'ui8')}, {_t(w_shape, 'i8')}, tensor<ui8>, tensor<i8>"
    lines.append(f'%acc = "versa.{kind}"(%x, %w, %za, %zb) {attrs} : ({types}) -> {_t(out, "i32")}')
    return lines, out, "%acc"


def requantized(kind: str, x_shape, f: int, zb: int = 0) -> str:
    """contraction + i32 bias + per-channel requantize clamped at its zero point (a ReLU)."""
    lines, out, acc = _contraction(kind, x_shape, f, zb)
    i32, ui8 = _t(out, "i32"), _t(out, "ui8")
    bias = (1,) * (len(out) - 1) + (f,)
    lines += [
        _const("b", RNG.integers(-3000, 3000, bias).astype(np.int32), "i32"),
        f'%a = "versa.add"({acc}, %b) : ({i32}, {_t(bias, "i32")}) -> {i32}',
        _const("s", RNG.uniform(2e-4, 2e-3, f).astype(np.float32), "f32"),
        _const("z", RNG.integers(0, 20, f).astype(np.uint8), "ui8"),
        f'%q = "versa.requantize"(%a, %s, %z) {{axis = {len(out) - 1} : i64, min = 20 : i64}}'
        f" : ({i32}, {_t((f,), 'f32')}, {_t((f,), 'ui8')}) -> {ui8}",
    ]
    return _function([f"%x: {_t(x_shape, 'ui8')}"], lines, "%q", ui8)


def residual(x_shape, f: int) -> str:
    """qconv2d, its float epilogue (scale, bias), + dequantize(residual), ReLU, quantize: the
    end of an INT8 ResNet block as PT2E's graph folds."""
    lines, out, acc = _contraction("qconv2d", x_shape, f, 0)
    i32, f32, ui8 = _t(out, "i32"), _t(out, "f32"), _t(out, "ui8")
    channel = _t((1, 1, 1, f), "f32")
    lines += [
        f'%cf = "versa.cast"({acc}) : ({i32}) -> {f32}',
        _const("s", RNG.uniform(1e-5, 1e-4, (1, 1, 1, f)).astype(np.float32), "f32"),
        f'%m = "versa.mul"(%cf, %s) : ({f32}, {channel}) -> {f32}',
        _const("b", RNG.uniform(-0.5, 0.5, (1, 1, 1, f)).astype(np.float32), "f32"),
        f'%ab = "versa.add"(%m, %b) : ({f32}, {channel}) -> {f32}',
        _const("rs", np.array(0.02, np.float32), "f32"),
        _const("rz", np.array(7, np.uint8), "ui8"),
        f'%d = "versa.dequantize"(%r, %rs, %rz) : ({ui8}, tensor<f32>, tensor<ui8>) -> {f32}',
        f'%sum = "versa.add"(%ab, %d) : ({f32}, {f32}) -> {f32}',
        f'%y = "versa.relu"(%sum) : ({f32}) -> {f32}',
        _const("inv", np.array(37.5, np.float32), "f32"),
        f'%k = "versa.mul"(%y, %inv) : ({f32}, tensor<f32>) -> {f32}',
        _const("one", np.array(1.0, np.float32), "f32"),
        _const("zo", np.array(3, np.uint8), "ui8"),
        f'%q = "versa.quantize"(%k, %one, %zo) : ({f32}, tensor<f32>, tensor<ui8>) -> {ui8}',
    ]
    return _function([f"%x: {_t(x_shape, 'ui8')}", f"%r: {ui8}"], lines, "%q", ui8)


def linear(x_shape, f: int, residual_shape=None) -> str:
    """A linear layer on [B, M, K] (qmatmul, rows folded when lowered): its float epilogue
    (per-channel scale, bias), + dequantize(residual), quantize. The residual is [B, M, F] or
    `residual_shape` (one broadcast over M keeps the epilogue in [B, M, F]: `fold_rows`)."""
    lines, out, acc = _contraction("qmatmul", x_shape, f, 0)
    i32, f32, ui8 = _t(out, "i32"), _t(out, "f32"), _t(out, "ui8")
    r_shape = residual_shape or out
    lines += [
        f'%cf = "versa.cast"({acc}) : ({i32}) -> {f32}',
        _const("s", RNG.uniform(1e-5, 1e-4, (1, 1, f)).astype(np.float32), "f32"),
        f'%m = "versa.mul"(%cf, %s) : ({f32}, {_t((1, 1, f), "f32")}) -> {f32}',
        _const("b", RNG.uniform(-0.5, 0.5, (f,)).astype(np.float32), "f32"),
        f'%ab = "versa.add"(%m, %b) : ({f32}, {_t((f,), "f32")}) -> {f32}',
        _const("rs", np.array(0.02, np.float32), "f32"),
        _const("rz", np.array(7, np.uint8), "ui8"),
        f'%d = "versa.dequantize"(%r, %rs, %rz) : ({_t(r_shape, "ui8")}, tensor<f32>, tensor<ui8>)'
        f" -> {_t(r_shape, 'f32')}",
        f'%sum = "versa.add"(%ab, %d) : ({f32}, {_t(r_shape, "f32")}) -> {f32}',
        _const("inv", np.array(37.5, np.float32), "f32"),
        f'%k = "versa.mul"(%sum, %inv) : ({f32}, tensor<f32>) -> {f32}',
        _const("one", np.array(1.0, np.float32), "f32"),
        _const("zo", np.array(3, np.uint8), "ui8"),
        f'%q = "versa.quantize"(%k, %one, %zo) : ({f32}, tensor<f32>, tensor<ui8>) -> {ui8}',
    ]
    return _function([f"%x: {_t(x_shape, 'ui8')}", f"%r: {_t(r_shape, 'ui8')}"], lines, "%q", ui8)


def _function(args: list[str], lines: list[str], result: str, result_type: str) -> str:
    body = "\n  ".join(lines)
    return f"""func.func @main({", ".join(args)}) -> {result_type} {{
  {body}
  return {result} : {result_type}
}}"""


def _steps(target: targets.Target, threads: int) -> list:
    return [*VersaOptimize(target=target).steps(), *LowerToLLVM(target=target, threads=threads).steps()]


def _until_kernels(text: str, target: targets.Target) -> str:
    """The module after versa-int8-kernels (and everything before it), canonicalized (the
    contraction's zero fill, now dead, removed)."""
    steps = _steps(target, 2)
    last = next(i for i, s in enumerate(steps) if isinstance(s, VersaInt8Kernels))
    module = parse_module(Chunk(text, 1), make_context())
    compiler.run_passes(module, [*steps[: last + 1], "canonicalize"])
    return str(module)


def _inputs(shapes: list[tuple]) -> list[np.ndarray]:
    return [RNG.integers(0, 256, s).astype(np.uint8) for s in shapes]


CASES = {  # the function, its inputs' shapes, its result's shape
    "conv": (lambda: requantized("qconv2d", (1, 9, 11, 24), 32), [(1, 9, 11, 24)], (1, 9, 11, 32)),
    "conv-padded-filters": (
        lambda: requantized("qconv2d", (1, 6, 7, 8), 24, zb=-3),
        [(1, 6, 7, 8)],
        (1, 6, 7, 24),
    ),
    "matmul": (lambda: requantized("qmatmul", (13, 40), 48), [(13, 40)], (13, 48)),
    "matmul-padded": (lambda: requantized("qmatmul", (5, 36), 20, zb=2), [(5, 36)], (5, 20)),
    "residual": (lambda: residual((1, 8, 9, 16), 32), [(1, 8, 9, 16), (1, 8, 9, 32)], (1, 8, 9, 32)),
    "linear": (lambda: linear((2, 7, 40), 48), [(2, 7, 40), (2, 7, 48)], (2, 7, 48)),
    "linear-broadcast": (
        lambda: linear((2, 7, 40), 48, (2, 1, 48)),
        [(2, 7, 40), (2, 1, 48)],
        (2, 7, 48),
    ),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_fused_epilogue_is_bit_exact(case: str, target: str, threads: int) -> None:
    if not TARGETS[target].is_host:
        pytest.skip(f"this CPU cannot run {target} code")
    make, shapes, _ = CASES[case]
    text = make()
    inputs = _inputs(shapes)
    (got,) = Compiled(text, _steps(TARGETS[target], threads)).jit(*inputs)
    (want,) = reference(text, inputs)
    np.testing.assert_array_equal(got, want)


def test_the_group_holds_the_chain_and_the_residual_dequantize() -> None:
    module = parse_module(Chunk(residual((1, 8, 9, 16), 32), 1), make_context())
    compiler.run_passes(module, list(VersaOptimize(target=V4).steps()))
    text = str(module)
    assert text.count('"versa.fused"') == 1 and 'kind = "epilogue"' in text
    group = text[text.index('"versa.fused"') :]
    assert (
        group.index('"versa.qconv2d"') < group.index('"versa.dequantize"') < group.index('"versa.quantize"')
    )


@pytest.mark.parametrize("case", ["conv", "matmul-padded", "residual", "linear"])
def test_the_kernel_writes_the_8_bit_output(case: str) -> None:
    """The kernel returns the 8-bit output (i8 once ui8 is erased); no i32 or f32 tensor of the
    layer's shape (or, for a linear on [B, M, K], of its folded [B·M, N]) is left in @main."""
    make, _, out = CASES[case]
    text = _until_kernels(make(), VNNI)
    main = text[text.index("func.func @main") :]
    kernel = text[text.index("func.func private @versa_int8_dot_0") :]
    assert kernel.splitlines()[0].rstrip(" {").endswith("xi8>"), kernel.splitlines()[0]
    for layer in {"x".join(map(str, out)), f"{int(np.prod(out[:-1]))}x{out[-1]}"}:
        assert f"<{layer}xi32>" not in main and f"<{layer}xf32>" not in main


def test_splat_weights() -> None:
    """A splat weight constant (every filter tap 1) comes back from its attribute as int64, not
    as bytes: versa-int8-kernels packs its values."""
    t = "tensor<1x4x4x16xi32>"
    text = _function(
        ["%x: tensor<1x4x4x8xui8>"],
        [
            '%w = "versa.constant"() {value = dense<1> : tensor<1x1x8x16xi8>} : () -> tensor<1x1x8x16xi8>',
            _const("za", np.array(3, np.uint8), "ui8"),
            _const("zb", np.array(0, np.int8), "i8"),
            '%acc = "versa.qconv2d"(%x, %w, %za, %zb) {dilations = array<i64: 1, 1>, groups = 1 : i64, '
            'layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} '
            f": (tensor<1x4x4x8xui8>, tensor<1x1x8x16xi8>, tensor<ui8>, tensor<i8>) -> {t}",
        ],
        "%acc",
        t,
    )
    inputs = _inputs([(1, 4, 4, 8)])
    for target in (VNNI, V4):
        if target.is_host:
            (got,) = Compiled(text, _steps(target, 1)).jit(*inputs)
            np.testing.assert_array_equal(got, reference(text, inputs)[0])
