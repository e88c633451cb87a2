"""versa-int8-kernels' dot-product kernel (`cpu/kernels/int8_dot.py`) on a plain qconv2d's input
unpadded (`int8_dot_borders.py`): the zero-point padding no copy, border rows and pixel tiles
reading clamped indices and the fill word, interior tiles unchecked. Bit-exact against the
NumPy reference (`dialects/semantics_quant.py`).

Cases: 3x3 pad 1 at strides 1 and 2, ResNet's 7x7 stride-2 pad-3 stem, uneven and dilated
padding, odd sizes, C and F not multiples of the group or the panel, batch 2, a width with an
interior pixel loop; u8 and i8 activations; a weight zero point (the window sums read the
padded copy, so the kernel reads it too); a fused requantize on two threads. Each target runs
where this CPU can run its code."""

import numpy as np
import pytest
from conftest import Compiled, reference
from qconv_programs import TARGETS, compile_steps, qconv, runnable
from versa import compiler
from versa.passes.cpu.int8_kernels import VersaInt8Kernels

RNG = np.random.default_rng(4749)


def _conv(x_shape, window, filters, conv, element, zeros, requantize=False) -> str:
    """@main(x) of one qconv2d on random constant weights (`qconv_programs.qconv`)."""
    return qconv(
        RNG,
        x_shape,
        window,
        filters,
        conv,
        element,
        zeros,
        depthwise=False,
        requantize=requantize,
        scales=(2e-5, 2e-4),
    )


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


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("element", "zeros"), [("ui8", (131, 0)), ("i8", (-7, 0)), ("ui8", (128, 3))])
@pytest.mark.parametrize("case", CASES)
def test_unpadded_conv_is_exact(target, element, zeros, case) -> None:
    runnable(TARGETS[target])
    x_shape, window, filters, conv = CASES[case]
    text = _conv(x_shape, window, filters, conv, element, zeros)
    low, high = (0, 256) if element == "ui8" else (-128, 128)
    x = RNG.integers(low, high, x_shape).astype(np.uint8 if element == "ui8" else np.int8)
    (got,) = Compiled(text, compile_steps(TARGETS[target], 1)).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("target", TARGETS)
def test_requantized_threaded_conv_is_exact(target) -> None:
    """The fused requantize in the kernel, two threads, the stem's borders."""
    runnable(TARGETS[target])
    text = _conv((1, 30, 29, 3), (7, 7), 24, ((2, 2), (1, 1), (3, 3, 3, 3)), "ui8", (131, 0), True)
    x = RNG.integers(0, 256, (1, 30, 29, 3)).astype(np.uint8)
    (got,) = Compiled(text, compile_steps(TARGETS[target], 2)).jit(x)
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
