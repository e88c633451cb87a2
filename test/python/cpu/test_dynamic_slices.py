"""`versa.slice` with bounds counted from a dim's end (`from_end`, issue 46): `x[1:]`, `x[1:-1:2]`
and `x[-4:]` of a dynamic dim compile once; the compiled code, the reference interpreter and
NumPy agree at every size, and a size too short for the bounds is refused per call by the
slice's rule, naming it (the compiled code never reads outside the dim). Exact: copies only."""

import numpy as np
import pytest
from versa import compiler
from versa.call_shapes import ShapeError
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.reference import interpret
from versa.signature import find_function


def _slice(name: str, attrs: str, result: str) -> str:
    return f'  %{name} = "versa.slice"(%x) {{{attrs}}} : (tensor<?x8xf32>) -> {result}\n'


SLICES = (
    "func.func @f(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>) {\n"
    + _slice(
        "tail",
        "starts = array<i64: 1, 0>, limits = array<i64: 0, 8>, from_end = array<i64: 2, 0>",
        "tensor<?x8xf32>",
    )
    + _slice(
        "inner",
        "starts = array<i64: 1, 0>, limits = array<i64: 1, 8>, strides = array<i64: 2, 1>, "
        "from_end = array<i64: 2, 0>",
        "tensor<?x8xf32>",
    )
    + _slice(
        "last",
        "starts = array<i64: 4, 0>, limits = array<i64: 0, 8>, from_end = array<i64: 3, 0>",
        "tensor<4x8xf32>",
    )
    + "  return %tail, %inner, %last : tensor<?x8xf32>, tensor<?x8xf32>, tensor<4x8xf32>\n}"
)


@pytest.fixture(scope="module")
def slices() -> JitFunction:
    return JitFunction(compiler.parse_module(compiler.Chunk(SLICES, 1), make_context()), cache=False)


@pytest.mark.parametrize("rows", [4, 5, 9, 64])
def test_bounds_from_the_end_match_numpy_and_the_reference(slices, rows):
    x = np.arange(rows * 8, dtype=np.float32).reshape(rows, 8)
    got = slices(x)
    module = compiler.parse_module(compiler.Chunk(SLICES, 1), make_context())
    want = interpret(find_function(module, None), [x])
    for g, w, n in zip(got, want, (x[1:], x[1:-1:2], x[-4:]), strict=True):
        np.testing.assert_array_equal(g, n)
        np.testing.assert_array_equal(w, n)


def test_a_dim_too_short_for_the_bounds_is_refused_per_call(slices):
    with pytest.raises(
        ShapeError, match=r"versa\.slice.*need 0 <= start \(-1\) <= limit \(3\) <= size \(3\)"
    ):
        slices(np.zeros((3, 8), np.float32))
