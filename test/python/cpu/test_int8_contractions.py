"""Integer contractions (qmatmul, qconv2d) through the CPU codegen strategies, bit-exact against
the NumPy reference (`dialects/semantics_quant.py`), compiled for x86-64-v3 (AVX2) and
x86-64-v4 (AVX-512) by name: ui8 x i8 and i8 x i8, zero points 0, constant and computed, sizes
that no register tile divides; depthwise convs take the depthwise strategy, other grouped convs
the quantized named ops (plain loops). Every compile is strict (conftest): a strategy whose
script fails fails the test. The generated code is checked too: qmatmul's inner loop multiplies
with `vpmaddwd` (zero-extended bytes, lowering/zero_points.py), not `vpmulld` or scalar `imul`."""

import re

import numpy as np
import pytest
from conftest import Compiled, reference
from versa import compiler, targets
from versa.translate import emit_assembly

TARGETS = ["x86-64-v3", "x86-64-v4"]
RNG = np.random.default_rng(47)
RANGES = {"ui8": (0, 256, np.uint8), "i8": (-128, 128, np.int8)}


def _pipeline(target: str) -> str:
    return f"lower-to-llvm{{target={target} threads=1}}"


def _runnable(target: str) -> None:
    if not targets.resolve(target).is_host:
        pytest.skip(f"this CPU cannot run {target} code")


def _tensor(shape, element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _data(shape, element: str) -> np.ndarray:
    low, high, dtype = RANGES[element]
    return RNG.integers(low, high, shape).astype(dtype)


def _zero(name: str, element: str, value) -> tuple[str, str]:
    """(a constant's definition or "", the operand) for a zero point; None: a function argument."""
    if value is None:
        return "", f"%{name}"
    t = f"tensor<{element}>"
    return f'%{name}c = "versa.constant"() {{value = dense<{value}> : {t}}} : () -> {t}', f"%{name}c"


def _function(op: str, shapes, elements, zeros, out_shape, attrs: str = "") -> str:
    """`@main` of one `op` on (lhs, rhs[, computed zero points]) with the zero points `zeros`."""
    args = [f"%a: {_tensor(shapes[0], elements[0])}", f"%b: {_tensor(shapes[1], elements[1])}"]
    lines, operands = [], []
    for name, element, value in zip(("za", "zb"), elements, zeros, strict=True):
        line, operand = _zero(name, element, value)
        lines += [line] if line else []
        args += [] if line else [f"%{name}: tensor<{element}>"]
        operands.append(operand)
    types = ", ".join(
        [_tensor(s, e) for s, e in zip(shapes, elements, strict=True)] + [f"tensor<{e}>" for e in elements]
    )
    out = _tensor(out_shape, "i32")
    body = "\n  ".join(lines)
    return f"""
func.func @main({", ".join(args)}) -> {out} {{
  {body}
  %0 = "versa.{op}"(%a, %b, {", ".join(operands)}) {attrs} : ({types}) -> {out}
  return %0 : {out}
}}"""


def _check(text: str, inputs: list[np.ndarray], target: str) -> None:
    (got,) = Compiled(text, _pipeline(target)).jit(*inputs)
    (want,) = reference(text, inputs)
    np.testing.assert_array_equal(got, want)


ZEROS = {  # (lhs zero point, rhs zero point): 0, constants, computed (arguments)
    "zero": (0, 0),
    "const": (131, -3),
    "computed": (None, None),
}
SIGNS = {"u8_i8": ("ui8", "i8"), "i8_i8": ("i8", "i8")}


def _zero_values(zeros, elements) -> list[np.ndarray]:
    """Values for the computed zero points (function arguments)."""
    return [
        np.array(RNG.integers(*RANGES[e][:2]), RANGES[e][2])
        for z, e in zip(zeros, elements, strict=True)
        if z is None
    ]


def _fit(zeros, elements):
    """Constant zero points within their element's range (131 is no i8)."""
    return tuple(
        z if z is None or RANGES[e][0] <= z < RANGES[e][1] else z - 256
        for z, e in zip(zeros, elements, strict=True)
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("signs", SIGNS)
@pytest.mark.parametrize("zeros", ZEROS)
@pytest.mark.parametrize(
    ("a_shape", "b_shape", "out_shape"),
    [
        ((13, 37), (37, 45), (13, 45)),
        ((2, 7, 64), (64, 33), (2, 7, 33)),
        ((3, 9, 20), (3, 20, 17), (3, 9, 17)),
    ],
    ids=["2d", "linear", "batch"],
)
def test_qmatmul_is_exact(target, signs, zeros, a_shape, b_shape, out_shape) -> None:
    _runnable(target)
    elements, zeros = SIGNS[signs], _fit(ZEROS[zeros], SIGNS[signs])
    text = _function("qmatmul", (a_shape, b_shape), elements, zeros, out_shape)
    inputs = [_data(a_shape, elements[0]), _data(b_shape, elements[1]), *_zero_values(zeros, elements)]
    _check(text, inputs, target)


CONVS = {  # x, w, out, attributes
    "nhwc": (
        (1, 11, 9, 13),
        (3, 3, 13, 21),
        (1, 6, 9, 21),
        'layout = "NHWC", strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>',
    ),
    "nchw": (
        (2, 5, 8, 7),
        (6, 5, 3, 2),
        (2, 6, 4, 6),
        "dilations = array<i64: 2, 1>, padding = array<i64: 0, 0, 0, 0>",
    ),
    "depthwise": (
        (1, 10, 9, 24),
        (3, 3, 1, 24),
        (1, 10, 9, 24),
        'layout = "NHWC", groups = 24 : i64, padding = array<i64: 1, 1, 1, 1>',
    ),
    "grouped": ((1, 6, 6, 8), (3, 3, 4, 6), (1, 4, 4, 6), 'layout = "NHWC", groups = 2 : i64'),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("signs", SIGNS)
@pytest.mark.parametrize("zeros", ZEROS)
@pytest.mark.parametrize("conv", CONVS)
def test_qconv2d_is_exact(target, signs, zeros, conv) -> None:
    _runnable(target)
    elements, zeros = SIGNS[signs], _fit(ZEROS[zeros], SIGNS[signs])
    x_shape, w_shape, out_shape, attrs = CONVS[conv]
    text = _function("qconv2d", (x_shape, w_shape), elements, zeros, out_shape, f"{{{attrs}}}")
    inputs = [_data(x_shape, elements[0]), _data(w_shape, elements[1]), *_zero_values(zeros, elements)]
    _check(text, inputs, target)


def _instructions(text: str, target: str) -> dict[str, int]:
    module = compiler.compile_text(text, f"lower-to-llvm{{target={target} threads=1 standalone=1}}")
    assembly = emit_assembly(module.operation, targets.resolve(target))
    names = ("vpmaddwd", "vpmulld", "imul", "vpdpbusd")
    return {name: len(re.findall(rf"\b{name}\w*\s+%[yz]mm", assembly)) for name in names}


@pytest.mark.parametrize("target", TARGETS)
def test_qmatmul_multiplies_with_vpmaddwd(target) -> None:
    """Zero-extended bytes (both operands read unsigned) times each other in i32 lanes: LLVM
    makes the multiply `vpmaddwd` (the odd i16 halves are zero), never `vpmulld`; targets
    without AVX-512 VNNI never get `vpdpbusd`."""
    text = _function("qmatmul", ((64, 128), (128, 64)), ("ui8", "i8"), (128, 0), (64, 64))
    found = _instructions(text, target)
    assert found["vpmaddwd"] >= 16 and found["vpmulld"] == 0 and found["vpdpbusd"] == 0, found


@pytest.mark.parametrize("target", TARGETS)
def test_qconv2d_multiplies_in_vectors(target) -> None:
    """The conv's 1-D decomposition vectorizes with sign-extended operands (the named convs have
    no unsigned form): LLVM multiplies with `vpmulld` on vector registers, not scalar `imul`."""
    text = _function(
        "qconv2d",
        ((1, 16, 16, 32), (3, 3, 32, 32)),
        ("ui8", "i8"),
        (128, 0),
        (1, 16, 16, 32),
        '{layout = "NHWC", padding = array<i64: 1, 1, 1, 1>}',
    )
    found = _instructions(text, target)
    assert found["vpmulld"] + found["vpmaddwd"] >= 16, found
