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


LEVELS_ALL = [
    "lower-to-llvm{opt-level=0}",
    "lower-to-llvm{opt-level=1}",
    *LEVELS[1:],
    "lower-to-llvm{opt-level=3 threads=1}",
]


def _reduce(op: str, shape: tuple[int, ...], axes: tuple[int, ...], element: str = "f32") -> str:
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    src = _type(shape, element)
    dst = _type(kept, element) if kept else f"tensor<{element}>"
    return f"""
func.func @main(%x: {src}) -> {dst} {{
  %0 = "versa.{op}"(%x) {{axes = array<i64: {", ".join(map(str, axes))}>}} : ({src}) -> {dst}
  return %0 : {dst}
}}"""


@pytest.mark.parametrize("pipeline", LEVELS_ALL)
@pytest.mark.parametrize("row", [1, 7, 17, 49, 197, 1000, 50257])
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_mean"])
def test_ragged_rows(op: str, row: int, pipeline: str) -> None:
    """Rows of any length: a vector loop over the multiple of V, then the tail as one vector."""
    shape = (6, row) if row > 1000 else (37, row)
    text = _reduce(op, shape, (1,))
    x = np.random.default_rng(row).standard_normal(shape).astype(np.float32)
    (got,) = Compiled(text, pipeline).jit(x)
    want = reference(text, [x])[0]
    if op == "reduce_max":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.sqrt(row))


@pytest.mark.parametrize("pipeline", LEVELS_ALL)
@pytest.mark.parametrize("row", [7, 49, 1000])
def test_ragged_integer_rows(row: int, pipeline: str) -> None:
    text = _reduce("reduce_sum", (19, row), (1,), "i32")
    x = np.random.default_rng(row).integers(-1000, 1000, (19, row)).astype(np.int32)
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_array_equal(got, x.sum(1))


MULTI_AXIS = [
    ((2, 16, 56, 56), (2, 3)),  # global average pool, NCHW
    ((2, 64, 7, 7), (2, 3)),  # rows of 49
    ((3, 5, 6, 7), (1, 2)),  # inner dims kept
    ((4, 6, 5, 8), (0, 2, 3)),  # batch-norm statistics: C kept
    ((4, 6, 5, 8), (0, 1)),  # outer reduction over two dims
]


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(("shape", "axes"), MULTI_AXIS, ids=str)
@pytest.mark.parametrize("op", ["reduce_mean", "reduce_max"])
def test_multi_axis(op: str, shape: tuple[int, ...], axes: tuple[int, ...], pipeline: str) -> None:
    """Adjacent reduced axes, contiguous in memory, become one axis (versa-collapse-reductions)."""
    text = _reduce(op, shape, axes)
    x = np.random.default_rng(len(axes)).standard_normal(shape).astype(np.float32)
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_allclose(got, reference(text, [x])[0], rtol=1e-5, atol=1e-5)


FULL = [(1 << 15,), (40000,), (181, 193), (3, 5, 2203), (1 << 18,)]


@pytest.mark.parametrize("pipeline", LEVELS_ALL)
@pytest.mark.parametrize("shape", FULL, ids=str)
@pytest.mark.parametrize(
    ("op", "element"), [("reduce_sum", "f32"), ("reduce_max", "f32"), ("reduce_sum", "i32")]
)
def test_full_reduction(op: str, element: str, shape: tuple[int, ...], pipeline: str) -> None:
    """Every axis: [P, n/P] row partials across threads, then the partials and the tail."""
    text = _reduce(op, shape, tuple(range(len(shape))), element)
    rng = np.random.default_rng(sum(shape))
    if element == "i32":
        x = rng.integers(-1000, 1000, shape).astype(np.int32)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    (got,) = Compiled(text, pipeline).jit(x)
    want = reference(text, [x])[0]
    if op == "reduce_sum" and element == "f32":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.sqrt(x.size))
    else:
        np.testing.assert_array_equal(got, want)


def _argmax_text(shape: tuple[int, ...], axis: int, element: str) -> str:
    kept = tuple(d for i, d in enumerate(shape) if i != axis)
    src, dst = _type(shape, element), _type(kept, "i64")
    return f"""
func.func @main(%x: {src}) -> {dst} {{
  %0 = "versa.reduce_argmax"(%x) {{axis = {axis} : i64}} : ({src}) -> {dst}
  return %0 : {dst}
}}"""


def _argmax_input(shape: tuple[int, ...], axis: int, element: str) -> np.ndarray:
    """Few distinct values (ties), and for floats rows of -inf, NaNs and signed zeros."""
    rng = np.random.default_rng(sum(shape) + axis)
    if element.startswith("i"):
        big = np.iinfo(np.int32 if element == "i32" else np.int64)
        x = rng.integers(-3, 4, shape).astype(element.replace("i", "int"))
        x.flat[:: max(1, x.size // 5)] = big.max
        x.flat[1 :: max(1, x.size // 3)] = big.min
        return x
    x = rng.integers(-3, 4, shape).astype(np.float32)
    rows = np.moveaxis(x, axis, -1).reshape(-1, shape[axis])  # a copy: written back below
    rows[0] = -np.inf
    if len(rows) > 2:
        rows[1, shape[axis] // 2 :] = np.nan
        rows[2, :: max(1, shape[axis] // 3)] = np.nan
    if len(rows) > 3:
        rows[3] = 0.0
        rows[3, 1::2] = -0.0
    return np.moveaxis(
        rows.reshape(*[d for i, d in enumerate(shape) if i != axis], shape[axis]), -1, axis
    ).copy()


ARGMAX = [((37, 1000), 1), ((9, 7), 1), ((5, 50257), 1), ((64, 33), 0), ((4, 6, 17), 1), ((3, 5, 197), 2)]


@pytest.mark.parametrize("pipeline", LEVELS_ALL)
@pytest.mark.parametrize(("shape", "axis"), ARGMAX, ids=str)
@pytest.mark.parametrize("element", ["f32", "i32", "i64"])
def test_argmax(element: str, shape: tuple[int, ...], axis: int, pipeline: str) -> None:
    """Exact: the first of equal maxima, NaN as the maximum, -inf rows give 0 (np.argmax)."""
    text = _argmax_text(shape, axis, element)
    x = _argmax_input(shape, axis, element)
    (got,) = Compiled(text, pipeline).jit(x)
    np.testing.assert_array_equal(got, np.argmax(x, axis=axis))


KEEPDIM = {
    "rows": ((2, 37, 96), "(d0, d1, 0)", ["parallel", "parallel", "reduction"], (2,)),  # gMLP's LayerNorm
    "ragged_rows": ((6, 49), "(d0, 0)", ["parallel", "reduction"], (1,)),
    "outer": ((8, 5, 48), "(0, d1, d2)", ["reduction", "parallel", "parallel"], (0,)),
    "every_element": ((4, 9000), "(0, 0)", ["reduction", "reduction"], (0, 1)),  # two stages
}


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("case", KEEPDIM)
@pytest.mark.parametrize("element", ["f32", "f16"])
def test_keepdim_generic(element: str, case: str, pipeline: str) -> None:
    """Sums whose result keeps the reduced dims as size 1 read at the constant 0, as
    torch-mlir's decompositions (fallback ops) write them: the row strategy's tiled partial
    sums of that form failed to vectorize ("Attempted to vectorize, but failed"), taking a
    whole torch graph to eager."""
    shape, result, kinds, axes = KEEPDIM[case]
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    src, dst = _type(shape, element), _type(kept, element)
    text = f"""
func.func @main(%x: {src}) -> {dst} {{
  %c = arith.constant 0.0 : {element}
  %e = tensor.empty() : {dst}
  %z = linalg.fill ins(%c : {element}) outs(%e : {dst}) -> {dst}
  %0 = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> {result}>],
      iterator_types = {kinds}}} ins(%x : {src}) outs(%z : {dst}) {{
  ^bb0(%in: {element}, %acc: {element}):
    %s = arith.addf %in, %acc : {element}
    linalg.yield %s : {element}
  }} -> {dst}
  return %0 : {dst}
}}""".replace("'", '"')
    x = (
        np.random.default_rng(len(shape))
        .integers(-4, 5, shape)
        .astype(np.float16 if element == "f16" else np.float32)
    )
    (got,) = Compiled(text, pipeline).jit(x)
    want = x.astype(np.float64).sum(axis=axes, keepdims=True)
    # small integers (every partial sum below 2048): exact in f16 too, in any order
    np.testing.assert_array_equal(got.astype(np.float64), want)
