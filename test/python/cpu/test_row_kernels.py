"""The row kernels (versa-row-kernels): softmax and layer_norm over trailing axes, against the
NumPy reference, at every optimisation level that uses them and with threads: rows a vector
divides and ragged ones, rows shorter than a vector, fewer rows than threads, 1-D to 4-D, and
the IEEE edge cases of softmax (-inf entries, a row of -inf is NaN as in NumPy and PyTorch).
Tolerance: 2e-6 relative (the polynomial exp is within 2 ulp of expf) + an absolute 1e-7 for
softmax's probabilities and 1e-6 for layer_norm's O(1) outputs (x - mean cancels: the rounding
of the mean, ~1e-7 * |x|, is scaled by 1/std)."""

import numpy as np
import pytest
from conftest import Compiled, reference
from row_programs import layer_norm_text, softmax_text, tensor_type

LEVELS = [
    "lower-to-llvm{opt-level=1}",
    "lower-to-llvm{opt-level=3 threads=2}",
    "lower-to-llvm{opt-level=3 threads=3}",
]
SHAPES = [(7,), (3, 16), (5, 1000), (2, 3, 37), (1, 2, 2, 48), (130, 64)]


def _check(text: str, pipeline: str, inputs: list[np.ndarray] | None = None, atol: float = 1e-7) -> None:
    compiled = Compiled(text, pipeline)
    inputs = inputs if inputs is not None else [3 * x for x in compiled.random_inputs()]
    (got,) = compiled.jit(*inputs)
    np.testing.assert_allclose(got, reference(text, inputs)[0], rtol=2e-6, atol=atol)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def testsoftmax_text(shape: tuple[int, ...], pipeline: str) -> None:
    _check(softmax_text(shape), pipeline)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    ("shape", "axis"), [((7,), 0), ((5, 1000), 1), ((2, 3, 37), 1), ((2, 3, 37), 2), ((4, 2, 48), 0)]
)
def testlayer_norm_text(shape: tuple[int, ...], axis: int, pipeline: str) -> None:
    _check(layer_norm_text(shape, axis), pipeline, atol=1e-6)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("length", [7, 27, 768])
def test_layer_norm_of_a_constant_row_is_beta(length: int, pipeline: str) -> None:
    """x - mean is exactly 0 on a constant row (the kernel centres a row on its first element):
    a plain f32 mean of 27 copies of 0.1 is off by an ulp, which rstd = 1/sqrt(eps) scaled to 1e-3."""
    x = np.array([[0.1] * length, [-3.7] * length, [1e3] * length], np.float32)
    rng = np.random.default_rng(0)
    g, b = (rng.standard_normal(length).astype(np.float32) for _ in range(2))
    (got,) = Compiled(layer_norm_text(x.shape, 1), pipeline).jit(x, g, b)
    np.testing.assert_array_equal(got, np.broadcast_to(b, x.shape))


@pytest.mark.parametrize("pipeline", LEVELS[:2])
def test_softmax_infinities(pipeline: str) -> None:
    x = np.random.default_rng(0).standard_normal((4, 37)).astype(np.float32)
    x[0, ::3] = -np.inf  # masked entries: exactly 0
    x[1, :] = -np.inf  # a fully masked row: NaN, as in NumPy and PyTorch
    x[2, 36] = -np.inf  # in the ragged tail
    compiled = Compiled(softmax_text((4, 37)), pipeline)
    (got,) = compiled.jit(x)
    with np.errstate(invalid="ignore"):
        want = reference(softmax_text((4, 37)), [x])[0]
    assert np.isnan(got[1]).all() and np.isnan(want[1]).all()
    keep = [0, 2, 3]
    np.testing.assert_allclose(got[keep], want[keep], rtol=2e-6, atol=1e-7)
    assert (got[0, ::3] == 0).all()


def test_large_logits_do_not_overflow() -> None:
    x = np.array([[1000.0, 999.0, -1000.0] * 11], np.float32)
    _check(softmax_text(x.shape), LEVELS[0], [x])


def test_unsupported_forms_keep_the_decomposition() -> None:
    """A softmax over a leading axis or in f16 is left to convert-versa-to-linalg and still runs."""
    text = """
func.func @main(%x: tensor<6x5xf32>) -> tensor<6x5xf32> {
  %0 = "versa.softmax"(%x) {axis = 0 : i64} : (tensor<6x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}"""
    _check(text, LEVELS[1])


@pytest.mark.parametrize("pipeline", LEVELS[1:2])
@pytest.mark.parametrize(
    "text", [softmax_text((2, 3, 37)), layer_norm_text((2, 3, 32), 2)], ids=["softmax", "layer_norm"]
)
def test_rank_3_rows_write_the_callers_buffer(text: str, pipeline: str) -> None:
    """A kernel over rows of a rank-3 tensor returns its row buffer reshaped: the buffer takes
    the result's shape (versa-reshaped-results), so the result needs no intermediate and no copy."""
    compiled = Compiled(text, pipeline)
    assert compiled.jit.memory.arena == 0
    assert "memcpy" not in str(compiled.module)
    _check(text, pipeline, atol=1e-6)


# Producers and consumers evaluated inside the kernel (row_producers.py): inputs read by rows
# in full, by rows mod their own count (a mask [5, 37] under [3, 5, 37]), as one row (a bias) or
# as one element (a scale); rows a vector divides, ragged and shorter than a vector; threads.
PRODUCER_SHAPES = [(3, 5, 37), (2, 4, 64), (6, 3, 7)]


def _producers_then(kind: str, shape: tuple[int, ...]) -> str:
    t, inner, row = tensor_type(shape), tensor_type(shape[1:]), tensor_type(shape[-1:])
    p = tensor_type(shape[-1:])
    kernel = (
        f'"versa.softmax"(%4) {{axis = -1 : i64}} : ({t}) -> {t}'
        if kind == "softmax"
        else f'"versa.layer_norm"(%4, %g, %b) {{axis = 2 : i64, epsilon = 1.0e-05 : f32}}'
        f" : ({t}, {p}, {p}) -> {t}"
    )
    return f"""
func.func @main(%x: {t}, %m: {inner}, %bias: {row}, %y: {t}, %g: {p}, %b: {p}) -> {t} {{
  %s = "versa.constant"() {{value = dense<0.125> : tensor<f32>}} : () -> tensor<f32>
  %0 = "versa.mul"(%x, %s) : ({t}, tensor<f32>) -> {t}
  %1 = "versa.add"(%0, %m) : ({t}, {inner}) -> {t}
  %2 = "versa.sub"(%1, %bias) : ({t}, {row}) -> {t}
  %3 = "versa.tanh"(%y) : ({t}) -> {t}
  %4 = "versa.add"(%2, %3) : ({t}, {t}) -> {t}
  %5 = {kernel}
  %6 = "versa.mul"(%5, %bias) : ({t}, {row}) -> {t}
  %7 = "versa.sub"(%6, %y) : ({t}, {t}) -> {t}
  %8 = "versa.mul"(%7, %5) : ({t}, {t}) -> {t}
  return %8 : {t}
}}"""


@pytest.mark.parametrize("fuse", ["versa-fuse,", ""], ids=["group", "ops"])
@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", PRODUCER_SHAPES, ids=str)
@pytest.mark.parametrize("kind", ["softmax", "layer_norm"])
def test_producers_and_consumers_inside_the_kernel(
    kind: str, shape: tuple[int, ...], pipeline: str, fuse: str
) -> None:
    text = _producers_then(kind, shape)
    compiled = Compiled(text, fuse + pipeline)
    inputs = compiled.random_inputs()
    (got,) = compiled.jit(*inputs)
    np.testing.assert_allclose(got, reference(text, inputs)[0], rtol=2e-6, atol=2e-6)
