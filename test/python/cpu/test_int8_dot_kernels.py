"""versa-int8-kernels: qmatmul / qconv2d (NHWC) with constant weights on vpdpbusd (VNNI) and
vpmaddwd (AVX-512BW, AVX2), bit-exact against the NumPy reference (`dialects/semantics_quant.py`).

Targets are named, never the host's: `x86-64-v4` (AVX-512BW, no VNNI: vpmaddwd zmm),
`x86-64-v3` (AVX2: vpmaddwd ymm), and `x86-64-v4` with `avx512vnni` added (vpdpbusd zmm), which
runs only where this CPU has VNNI. Cases: u8 and i8 activations, zero points 0, constant and
computed, K not a multiple of 4 (nor 2), odd M and N, and the corners where a saturating
`vpmaddubsw` would go wrong (activations 255 against weights -128 / 127)."""

import dataclasses
import re

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, targets
from versa.passes.cpu.int8_kernels import isa_of
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.translate import emit_assembly

V4 = targets.resolve("x86-64-v4")
VNNI = dataclasses.replace(V4, name="x86-64-v4-vnni", features=tuple(sorted({*V4.features, "avx512vnni"})))
TARGETS = {"v3": targets.resolve("x86-64-v3"), "v4": V4, "vnni": VNNI}
RNG = np.random.default_rng(470)
RANGES = {"ui8": (0, 256, np.uint8), "i8": (-128, 128, np.int8)}


def _t(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _dense(array: np.ndarray, element: str) -> str:
    t = _t(array.shape, element)
    return f'"versa.constant"() {{value = dense<"0x{array.tobytes().hex().upper()}"> : {t}}} : () -> {t}'


def _function(op: str, x_shape, x_element: str, weights: np.ndarray, zeros, out_shape, attrs="") -> str:
    """@main(x[, computed zero point]) of one `op` on constant i8 `weights`."""
    za, zb = zeros
    args = [f"%x: {_t(x_shape, x_element)}"] + ([f"%za: tensor<{x_element}>"] if za is None else [])
    lines = [f"%w = {_dense(weights, 'i8')}"]
    if za is not None:
        zt = f"tensor<{x_element}>"
        lines.append(f'%za = "versa.constant"() {{value = dense<{za}> : {zt}}} : () -> {zt}')
    lines.append(f'%zb = "versa.constant"() {{value = dense<{zb}> : tensor<i8>}} : () -> tensor<i8>')
    types = f"{_t(x_shape, x_element)}, {_t(weights.shape, 'i8')}, tensor<{x_element}>, tensor<i8>"
    out = _t(out_shape, "i32")
    body = "\n  ".join(lines)
    return f"""func.func @main({", ".join(args)}) -> {out} {{
  {body}
  %0 = "versa.{op}"(%x, %w, %za, %zb) {attrs} : ({types}) -> {out}
  return %0 : {out}
}}"""


def _pipeline(target: targets.Target) -> list:
    return list(LowerToLLVM(target=target, threads=1).steps())


def _check(text: str, inputs: list[np.ndarray], target: targets.Target) -> None:
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")
    (got,) = Compiled(text, _pipeline(target)).jit(*inputs)
    (want,) = reference(text, inputs)
    np.testing.assert_array_equal(got, want)


def _data(shape, element: str) -> np.ndarray:
    low, high, dtype = RANGES[element]
    return RNG.integers(low, high, shape).astype(dtype)


ZEROS = {"zero": (0, 0), "const": (131, -3), "computed": (None, 5)}


def _zeros(name: str, element: str):
    za, zb = ZEROS[name]
    return (za - 256 if element == "i8" and za is not None and za > 127 else za), zb


def _inputs(x: np.ndarray, za, element: str) -> list[np.ndarray]:
    return [x] if za is not None else [x, np.array(RANGES[element][0] + 77, RANGES[element][2])]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("element", ["ui8", "i8"])
@pytest.mark.parametrize("zeros", ZEROS)
@pytest.mark.parametrize(("a_shape", "k", "n"), [((13, 37), 37, 45), ((2, 7, 66), 66, 33), ((1, 5), 5, 3)])
def test_qmatmul_is_exact(target, element, zeros, a_shape, k, n) -> None:
    za, zb = _zeros(zeros, element)
    weights = _data((k, n), "i8")
    text = _function("qmatmul", a_shape, element, weights, (za, zb), (*a_shape[:-1], n))
    x = _data(a_shape, element)
    _check(text, _inputs(x, za, element), TARGETS[target])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("element", ["ui8", "i8"])
def test_saturation_corners_are_exact(target, element) -> None:
    """Activations at the top of their range against weights -128 and 127 in every pair: a
    saturating vpmaddubsw (255·127·2 > 32767) would clamp; vpdpbusd and widened vpmaddwd must not."""
    high = 255 if element == "ui8" else 127
    x = np.full((9, 40), high, RANGES[element][2])
    x[::2, 1::3] = RANGES[element][0]
    weights = np.where(np.arange(40 * 17).reshape(40, 17) % 3 == 0, -128, 127).astype(np.int8)
    text = _function("qmatmul", x.shape, element, weights, (0, 0), (9, 17))
    _check(text, [x], TARGETS[target])


CONVS = {  # x, w, out, attributes: 3x3 padded, strided and dilated, 1x1, C not a multiple of 4
    "3x3": ((1, 9, 10, 16), (3, 3, 16, 24), (1, 9, 10, 24), "padding = array<i64: 1, 1, 1, 1>"),
    "strided": (
        (2, 11, 9, 13),
        (3, 2, 13, 21),
        (2, 5, 4, 21),
        "strides = array<i64: 2, 2>, dilations = array<i64: 1, 2>, padding = array<i64: 0, 1, 0, 0>",
    ),
    "1x1": ((1, 7, 5, 3), (1, 1, 3, 70), (1, 7, 5, 70), ""),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("element", ["ui8", "i8"])
@pytest.mark.parametrize("zeros", ["zero", "const"])
@pytest.mark.parametrize("conv", CONVS)
def test_qconv2d_nhwc_is_exact(target, element, zeros, conv) -> None:
    za, zb = _zeros(zeros, element)
    x_shape, w_shape, out_shape, attrs = CONVS[conv]
    weights = _data(w_shape, "i8")
    text = _function(
        "qconv2d",
        x_shape,
        element,
        weights,
        (za, zb),
        out_shape,
        f'{{layout = "NHWC", {attrs}}}'.replace(", }", "}"),
    )
    _check(text, _inputs(_data(x_shape, element), za, element), TARGETS[target])


def _instructions(text: str, target: targets.Target) -> dict[str, int]:
    module = compiler.compile_text(text, list(LowerToLLVM(target=target, threads=1, standalone=True).steps()))
    assembly = emit_assembly(module.operation, target)
    names = ("vpdpbusd", "vpmaddwd", "vpmulld", "vpmaddubsw")
    return {name: len(re.findall(rf"\b{name}\w*\s+.*%([xyz]mm)", assembly)) for name in names}


@pytest.mark.parametrize(
    ("target", "instruction", "register"),
    [("vnni", "vpdpbusd", "zmm"), ("v4", "vpmaddwd", "zmm"), ("v3", "vpmaddwd", "ymm")],
)
def test_instruction_follows_the_target(target, instruction, register) -> None:
    """The target's features choose the instruction: vpdpbusd only with VNNI, never vpmulld."""
    text = _function("qmatmul", (64, 128), "ui8", _data((128, 64), "i8"), (128, 0), (64, 64))
    module = compiler.compile_text(
        text, list(LowerToLLVM(target=TARGETS[target], threads=1, standalone=True).steps())
    )
    assembly = emit_assembly(module.operation, TARGETS[target])
    found = _instructions(text, TARGETS[target])
    assert found[instruction] >= 16 and found["vpmulld"] == 0, found
    assert re.search(rf"\b{instruction}\s+.*%{register}", assembly)
    if instruction != "vpdpbusd":
        assert found["vpdpbusd"] == 0, found


def test_portable_targets_keep_the_strategies() -> None:
    """An x86 CPU without AVX2 has neither; AArch64's sdot/udot: test_int8_dot_aarch64.py."""
    assert isa_of(dataclasses.replace(TARGETS["v3"], name="sse4", features=("+sse4.2",))) is None


@pytest.mark.parametrize("target", TARGETS)
def test_threads_are_exact(target) -> None:
    """Two threads: panels and output rows as an scf.forall (OpenMP where the runtime is)."""
    target = TARGETS[target]
    if not target.is_host:
        pytest.skip(f"this CPU cannot run {target.name} code")
    x_shape, w_shape, out_shape, attrs = CONVS["3x3"]
    text = _function(
        "qconv2d", x_shape, "ui8", _data(w_shape, "i8"), (128, 0), out_shape, f'{{layout = "NHWC", {attrs}}}'
    )
    x = _data(x_shape, "ui8")
    (got,) = Compiled(text, list(LowerToLLVM(target=target, threads=2).steps())).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])
