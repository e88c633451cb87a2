"""Reductions (the reduction codegen strategies) at every optimisation level, against NumPy:
sum/max/mean over the last axis, 2-D and 3-D, rows that a vector width divides and rows that
it does not (left scalar), floats and integers, and softmax/layer_norm built on them; and over
outer axes (vector code across the kept innermost dim), split across threads by kept rows or
by columns, with row blocks and column widths that divide or not."""

import numpy as np
import pytest
from conftest import Compiled, reference

LEVELS = ["lower-to-llvm{opt-level=0}", "lower-to-llvm{opt-level=2}", "lower-to-llvm{opt-level=3 threads=2}"]
SHAPES = [(3, 64), (130, 256), (5, 7, 48), (9, 30)]


def _type(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_mean"])
def test_row_reduction(op: str, shape: tuple[int, ...], pipeline: str) -> None:
    src, dst = _type(shape, "f32"), _type(shape[:-1], "f32")
    text = f"""
func.func @main(%x: {src}) -> {dst} {{
  %0 = "versa.{op}"(%x) {{axes = array<i64: -1>}} : ({src}) -> {dst}
  return %0 : {dst}
}}"""
    x = np.random.default_rng(len(shape)).integers(-4, 5, shape).astype(np.float32)
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_allclose(got, reference(text, [x])[0], rtol=1e-6, atol=1e-6)


OUTER = [
    ((130, 256), (0,)),  # row blocks of 2, column chunks per thread
    ((64, 48), (0,)),  # one vector width
    ((9, 30), (0,)),  # no width divides 30: left scalar
    ((5, 7, 48), (1,)),
    ((4, 33, 64), (0, 1)),
    ((64, 1024), (0,)),  # columns split across threads
    ((16, 40, 64), (1,)),  # kept outer rows split across threads
]


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(("shape", "axes"), OUTER, ids=str)
@pytest.mark.parametrize(
    ("op", "element"), [("reduce_sum", "f32"), ("reduce_max", "f32"), ("reduce_sum", "i32")]
)
def test_outer_reduction(
    op: str, element: str, shape: tuple[int, ...], axes: tuple[int, ...], pipeline: str
) -> None:
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    src, dst = _type(shape, element), _type(kept, element)
    text = f"""
func.func @main(%x: {src}) -> {dst} {{
  %0 = "versa.{op}"(%x) {{axes = array<i64: {", ".join(map(str, axes))}>}} : ({src}) -> {dst}
  return %0 : {dst}
}}"""
    x = (
        np.random.default_rng(len(shape))
        .integers(-4, 5, shape)
        .astype(element.replace("f", "float").replace("i", "int"))
    )
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_array_equal(got, reference(text, [x])[0])


@pytest.mark.parametrize("pipeline", LEVELS[1:])
def test_integer_row_sum(pipeline: str) -> None:
    text = """
func.func @main(%x: tensor<33x64xi32>) -> tensor<33xi32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<33x64xi32>) -> tensor<33xi32>
  return %0 : tensor<33xi32>
}"""
    x = np.random.default_rng(1).integers(-100, 100, (33, 64)).astype(np.int32)
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_array_equal(got, x.sum(1))


@pytest.mark.parametrize("pipeline", LEVELS[1:])
def test_softmax_and_layer_norm_rows(pipeline: str) -> None:
    text = """
func.func @main(%x: tensor<24x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>)
    -> (tensor<24x128xf32>, tensor<24x128xf32>) {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<24x128xf32>) -> tensor<24x128xf32>
  %1 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<24x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<24x128xf32>
  return %0, %1 : tensor<24x128xf32>, tensor<24x128xf32>
}"""
    compiled = Compiled(text, pipeline)
    inputs = compiled.random_inputs()
    for got, want in zip(compiled.jit(*inputs), reference(text, inputs), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
