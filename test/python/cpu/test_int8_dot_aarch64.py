"""versa-int8-kernels on AArch64: qmatmul on `udot`, NHWC qconv2d on `sdot` (FEAT_DotProd, which
aarch64-neon's Neoverse-N1 and aarch64-sve's Neoverse-V1 have), compiled ahead of time, linked
with examples/c/run_model.c and run under qemu user mode, bit-exact against the NumPy reference.

Why no shift is needed (kernels/int8_dot_aarch64.py): the contraction already reads both
operands in one range, u8 x u8 for qmatmul and s8 x s8 for qconv2d, so the corners a shift would
get wrong (activations 255 / 127 against weights -128 and 127 everywhere) are cases here, with
u8 and i8 activations, constant and computed zero points, K, N and C off the group of 4 and the
panel, and pixel rows off the register tile. Without the cross tools the qemu tests skip.
"""

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import reference
from test_aarch64 import RUNNERS
from test_aot import Program, needs, run_from_c
from test_int8_dot_kernels import CONVS, RANGES, _data, _function, _inputs, _zeros
from versa import compiler, targets
from versa.passes.cpu.int8_kernels import isa_of
from versa.passes.cpu.kernels.int8_dot_aarch64 import NEON_DOT
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.translate import emit_assembly

DOTS = ("sdot", "udot")
MATMULS = {  # activations, K, N, activation type, zero points
    "odd": ((13, 37), 37, 45, "ui8", "const"),
    "rows_folded": ((2, 7, 66), 66, 33, "i8", "computed"),
    "tiny": ((1, 5), 5, 3, "ui8", "zero"),
}


def _matmul(case: str) -> Program:
    a_shape, k, n, element, zeros = MATMULS[case]
    za, zb = _zeros(zeros, element)
    text = _function("qmatmul", a_shape, element, _data((k, n), "i8"), (za, zb), (*a_shape[:-1], n))
    inputs = _inputs(_data(a_shape, element), za, element)
    return Program(case, text, inputs, reference(text, inputs))


def _conv(case: str, element: str) -> Program:
    x_shape, w_shape, out_shape, attrs = CONVS[case]
    za, zb = _zeros("const", element)
    layout = f'{{layout = "NHWC", {attrs}}}'.replace(", }", "}")
    text = _function("qconv2d", x_shape, element, _data(w_shape, "i8"), (za, zb), out_shape, layout)
    inputs = _inputs(_data(x_shape, element), za, element)
    return Program(case, text, inputs, reference(text, inputs))


def _corners(element: str) -> Program:
    """Activations at the top of their range against weights -128 / 127."""
    low, high = RANGES[element][0], (255 if element == "ui8" else 127)
    x = np.full((9, 40), high, RANGES[element][2])
    x[::2, 1::3] = low
    weights = np.where(np.arange(40 * 17).reshape(40, 17) % 3 == 0, -128, 127).astype(np.int8)
    text = _function("qmatmul", x.shape, element, weights, (0, 0), (9, 17))
    return Program("corners", text, [x], reference(text, [x]))


def _run(program: Program, target: str, tmp_path: Path) -> None:
    needs("aarch64-linux-gnu-gcc", "qemu-aarch64-static")
    got = run_from_c(program, target, tmp_path, shared=False, runner=RUNNERS[target])
    for g, want in zip(got, program.expected, strict=True):
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("target", RUNNERS)
@pytest.mark.parametrize("case", MATMULS)
def test_qmatmul_under_qemu(case: str, target: str, tmp_path: Path) -> None:
    _run(_matmul(case), target, tmp_path)


@pytest.mark.parametrize("target", RUNNERS)
@pytest.mark.parametrize(("case", "element"), [("3x3", "i8"), ("strided", "ui8"), ("1x1", "ui8")])
def test_qconv2d_nhwc_under_qemu(case: str, element: str, target: str, tmp_path: Path) -> None:
    _run(_conv(case, element), target, tmp_path)


@pytest.mark.parametrize("element", ["ui8", "i8"])
def test_range_corners_under_qemu(element: str, tmp_path: Path) -> None:
    _run(_corners(element), "aarch64-neon", tmp_path)


def _dots(program: Program, target: targets.Target) -> dict[str, int]:
    pipeline = list(LowerToLLVM(target=target, threads=1, standalone=True).steps())
    assembly = emit_assembly(compiler.compile_text(program.text, pipeline).operation, target)
    return {name: len(re.findall(rf"\b{name}\s+v\d+\.4s, v\d+\.16b, v\d+\.16b", assembly)) for name in DOTS}


@pytest.mark.parametrize("target", RUNNERS)
def test_instruction_follows_the_operands(target: str) -> None:
    """udot for qmatmul (read u8 x u8), sdot for qconv2d (s8 x s8), whatever x's stored type."""
    t = targets.resolve(target)
    assert isa_of(t) is NEON_DOT
    matmul, conv = _dots(_matmul("odd"), t), _dots(_conv("3x3", "ui8"), t)
    assert matmul["udot"] >= 16 and matmul["sdot"] == 0, matmul
    assert conv["sdot"] >= 16 and conv["udot"] == 0, conv


def test_without_dotprod_the_strategies_stay() -> None:
    """The target's features decide, never the host: an Armv8.0 NEON CPU gets no dot kernels."""
    neon = targets.resolve("aarch64-neon")
    plain = dataclasses.replace(neon, name="aarch64-v8.0", cpu="generic", features=("+neon", "+fp-armv8"))
    assert isa_of(plain) is None
    found = _dots(_matmul("odd"), plain)
    assert found == {"sdot": 0, "udot": 0}, found
