"""versa.max_pool2d on 8-bit integers (i8, ui8), compiled at -O0, -O1 and -O3, against the NumPy
reference (versa.reference), exactly: NCHW and NHWC, padding, strides, static and dynamic H and
W. The paths differ by level and layout (pool_regions.integer_max_pool2d, versa-pool-kernels):
-O1+ static NCHW is the byte kernel, -O3 NHWC the views with `arith.maxui`/`maxsi`, the others
named pooling ops (ui8 flipped by x ^ 0x80 around a signed pool). Inputs draw the whole range
of the type (0 and 255, -128 and 127 included), so a signed compare of ui8 bytes, or a padding
value that can win, shows as a wrong byte.
"""

import numpy as np
import pytest
from test_lowering_numerics import compile_and_run
from versa import compiler
from versa.context import make_context
from versa.diagnostics import CompileError
from versa.dialects import shapes
from versa.reference import interpret
from versa.signature import find_function

RNG = np.random.default_rng(47)
DTYPES = {"i8": np.int8, "ui8": np.uint8}


def _program(shape, element, kernel, strides, padding, layout, dynamic=()) -> str:
    """@main: one max_pool2d of a `shape` input; dims in `dynamic` are `?`."""
    out = shapes.pool2d(shape, kernel, strides, padding, layout)
    ins = "x".join("?" if d in dynamic else str(s) for d, s in enumerate(shape))
    outs = "x".join("?" if d in dynamic else str(s) for d, s in enumerate(out))
    attrs = (
        f"kernel = array<i64: {kernel[0]}, {kernel[1]}>, strides = array<i64: {strides[0]}, {strides[1]}>, "
        f'padding = array<i64: {", ".join(map(str, padding))}>, layout = "{layout}"'
    )
    return f"""
func.func @main(%x: tensor<{ins}x{element}>) -> tensor<{outs}x{element}> {{
  %y = "versa.max_pool2d"(%x) {{{attrs}}} : (tensor<{ins}x{element}>) -> tensor<{outs}x{element}>
  return %y : tensor<{outs}x{element}>
}}
"""


def _input(shape, element) -> np.ndarray:
    info = np.iinfo(DTYPES[element])
    x = RNG.integers(info.min, info.max + 1, shape).astype(DTYPES[element])
    x.flat[::5] = info.min  # windows of minima only: the padding's value must not leak in
    x.flat[1::7] = info.max
    return x


def _check(text: str, x: np.ndarray, opt_level: int) -> None:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    (want,) = interpret(find_function(module, "main"), [x])
    (got,) = compile_and_run(text, [x], opt_level)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)


# (N, C, H, W), kernel, strides, padding [top, left, bottom, right]
CASES = [
    pytest.param((1, 3, 9, 150), (3, 3), (2, 2), (1, 1, 1, 1), id="stem-3x3-s2-p1"),  # full inside tiles
    pytest.param((2, 4, 7, 6), (3, 2), (2, 1), (1, 1, 2, 0), id="asymmetric-padding"),
    pytest.param((1, 5, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), id="2x2-s2"),
    pytest.param((1, 2, 11, 13), (5, 4), (3, 2), (2, 3, 1, 0), id="5x4-s3x2"),
]


@pytest.mark.parametrize("opt_level", [0, 1, 3])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("element", ["ui8", "i8"])
@pytest.mark.parametrize(("shape", "kernel", "strides", "padding"), CASES)
def test_integer_max_pool_matches_reference(shape, kernel, strides, padding, element, layout, opt_level):
    nchw = shape if layout == "NCHW" else (shape[0], shape[2], shape[3], shape[1])
    text = _program(nchw, element, kernel, strides, padding, layout)
    _check(text, _input(nchw, element), opt_level)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("element", ["ui8", "i8"])
def test_dynamic_integer_max_pool_matches_reference(element, layout):
    """H and W `?` (dynamic_pool2d; ui8 flipped), two sizes through one compile."""
    spatial = (2, 3) if layout == "NCHW" else (1, 2)
    for size in ((9, 14), (6, 5)):
        shape = [1, 3, *size] if layout == "NCHW" else [1, *size, 3]
        text = _program(shape, element, (3, 3), (2, 2), (1, 1, 1, 1), layout, dynamic=spatial)
        _check(text, _input(tuple(shape), element), 3)


def test_max_pool_refuses_wide_integers():
    """i32 (and i64, i1) are not what a quantized net pools: a verifier error at the op's line."""
    text = _program((1, 1, 4, 4), "i32", (2, 2), (2, 2), (0, 0, 0, 0), "NCHW")
    with pytest.raises(CompileError, match="expects a float or 8-bit integer element type, got i32") as err:
        compiler.parse_module(compiler.Chunk(text, 1), make_context())
    assert err.value.format("pool.mlir").startswith("pool.mlir:3:"), err.value.format("pool.mlir")
