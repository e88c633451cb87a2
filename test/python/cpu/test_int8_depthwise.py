"""versa-int8-kernels' depthwise kernel (`cpu/kernels/int8_depthwise.py`): depthwise qconv2d
(NHWC, constant weights) on vpdpbusd (VNNI) and vpmaddwd (AVX-512BW, AVX2) over interleaved
input rows, bit-exact against the NumPy reference (`dialects/semantics_quant.py`).

Cases: strides 1 and 2, padding (also uneven), dilation, a 5x5 window, C not a multiple of the
lanes, widths no pixel tile divides, heights no row block divides, batch 2; the borders read in
the kernel from the unpadded input (`int8_borders.py`: border and interior row blocks, border
pixel tiles, overlapping channel blocks); u8 and i8
activations with zero points; the fused requantize epilogue; two threads (rows 28 wide and
more). Each target runs where this CPU can run its code."""

import re

import numpy as np
import pytest
from conftest import Compiled, reference
from qconv_programs import TARGETS, compile_steps, qconv, runnable
from versa import compiler
from versa.passes.cpu.int8_kernels import isa_of
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.translate import emit_assembly

RNG = np.random.default_rng(4748)


def _depthwise(x_shape, window, conv, element: str, zeros, requantize: bool = False) -> str:
    """@main(x) of one depthwise qconv2d on random constant weights (`qconv_programs.qconv`)."""
    c = x_shape[3]
    return qconv(
        RNG,
        x_shape,
        window,
        c,
        conv,
        element,
        zeros,
        depthwise=True,
        requantize=requantize,
        scales=(2e-4, 2e-3),
    )


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


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("element", "zeros"), [("ui8", (131, 0)), ("i8", (-7, 3)), ("ui8", (0, 0))])
@pytest.mark.parametrize("case", CASES)
def test_depthwise_is_exact(target, element, zeros, case) -> None:
    runnable(TARGETS[target])
    x_shape, window, conv = CASES[case]
    text = _depthwise(x_shape, window, conv, element, zeros)
    low, high = (0, 256) if element == "ui8" else (-128, 128)
    x = RNG.integers(low, high, x_shape).astype(np.uint8 if element == "ui8" else np.int8)
    (got,) = Compiled(text, compile_steps(TARGETS[target], 1)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("target", TARGETS)
def test_requantized_depthwise_is_exact(target, threads) -> None:
    """The fused per-channel requantize computed in the kernel (u8 out)."""
    runnable(TARGETS[target])
    text = _depthwise((1, 9, 11, 24), (3, 3), ((1, 1), (1, 1), PAD1), "ui8", (131, 0), True)
    x = RNG.integers(0, 256, (1, 9, 11, 24)).astype(np.uint8)
    (got,) = Compiled(text, compile_steps(TARGETS[target], threads)).jit(x)
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
    runnable(TARGETS[target])
    x_shape, conv = THREADED[case]
    text = _depthwise(x_shape, (3, 3), conv, "ui8", (131, 0), True)
    steps = compile_steps(TARGETS[target], 2)
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
