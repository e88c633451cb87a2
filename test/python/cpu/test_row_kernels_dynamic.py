"""softmax and layer_norm row kernels over dynamic dims: one compile called at many sizes.

Rows may be dynamic (a batch, a sequence: split across threads per call, as many chunks as
there are threads and rows), and so may a softmax's row (attention's key length: full vectors
to the call's length, then a masked tail where there is one). Against NumPy in float64 with
test_row_kernels.py's tolerances, at sizes that cover no rows, one row, rows that do not
divide among the threads, rows shorter than a vector, of whole vectors and ragged; f32 and
f16, both softmax forms (software-pipelined, and three-pass), opt-levels 1 and 3, threads 1
to 3. And what makes them as fast as a static compile: the result is the caller's buffer, not
a per-call allocation copied out (versa-reshaped-results, `hoist-dynamic-allocs`)."""

import numpy as np
import pytest
from row_programs import LEVELS, softmax_f64
from versa import compiler
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir

V = 16  # the most f32 lanes of any x86 target: sizes below cover < V, = V, > V for all of them


def _softmax(dims: str, element: str = "f32") -> str:
    t = f"tensor<{dims}x{element}>"
    return f"""func.func @main(%x: {t}) -> {t} {{
  %0 = "versa.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %0 : {t}
}}"""


def _layer_norm(dims: str, length: int) -> str:
    t, p = f"tensor<{dims}xf32>", f"tensor<{length}xf32>"
    return f"""func.func @main(%x: {t}, %g: {p}, %b: {p}) -> {t} {{
  %0 = "versa.layer_norm"(%x, %g, %b) {{axis = -1 : i64, epsilon = 1.0e-05 : f32}} : ({t}, {p}, {p}) -> {t}
  return %0 : {t}
}}"""


def _layer_norm_f64(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * g + b


def _softmax_f64(x: np.ndarray) -> np.ndarray:
    return softmax_f64(x) if x.size else x.astype(np.float64)  # no rows, or rows of nothing


def _compile(text: str, pipeline: str) -> JitFunction:
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    return JitFunction(module, pipeline=pipeline, cache=False)


SOFTMAX_SIZES = [
    (0, 5, 7),
    (1, 1, 1),
    (1, 3, V),
    (2, 5, 2 * V + 3),
    (3, 7, 4 * V),
    (1, 2, 11 * V + 5),
    (2, 1, 0),
]


@pytest.mark.parametrize("pipeline", LEVELS)
def test_softmax_over_a_dynamic_row(pipeline: str) -> None:
    """Batch, rows and row length all dynamic (`?x12x?x?`, attention's scores), one compile."""
    compiled = _compile(_softmax("?x3x?x?"), pipeline)
    rng = np.random.default_rng(0)
    for b, rows, n in SOFTMAX_SIZES:
        x = rng.uniform(-8, 8, (b, 3, rows, n)).astype(np.float32)
        (got,) = compiled(x)
        np.testing.assert_allclose(got, _softmax_f64(x), rtol=2e-6, atol=1e-7, err_msg=str(x.shape))


@pytest.mark.parametrize("pipeline", LEVELS[1:])
@pytest.mark.parametrize("length", [5, V, 3 * V + 1])
def test_softmax_over_dynamic_rows_of_a_static_length(pipeline: str, length: int) -> None:
    compiled = _compile(_softmax(f"?x{length}"), pipeline)
    rng = np.random.default_rng(1)
    for rows in (0, 1, 2, 5, 64):
        x = rng.uniform(-8, 8, (rows, length)).astype(np.float32)
        (got,) = compiled(x)
        np.testing.assert_allclose(got, _softmax_f64(x), rtol=2e-6, atol=1e-7, err_msg=str(x.shape))


@pytest.mark.parametrize("pipeline", LEVELS[1:])
def test_f16_softmax_over_a_dynamic_row(pipeline: str) -> None:
    """Computed in f32, rounded once to f16 (test_row_kernels_half.py's bound: half an f16 unit)."""
    compiled = _compile(_softmax("?x?", "f16"), pipeline)
    rng = np.random.default_rng(2)
    for rows, n in ((0, 4), (1, 3), (3, V + 1), (7, 40)):
        x = rng.uniform(-4, 4, (rows, n)).astype(np.float16)
        (got,) = compiled(x)
        want = _softmax_f64(x.astype(np.float64))
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2**-11, atol=1e-7)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("length", [7, 3 * V])
def test_layer_norm_over_dynamic_rows(pipeline: str, length: int) -> None:
    """A layer_norm's rows (batch x sequence) dynamic, its row (gamma, beta) static."""
    compiled = _compile(_layer_norm(f"?x?x{length}", length), pipeline)
    rng = np.random.default_rng(3)
    g, b = (rng.uniform(-1, 1, length).astype(np.float32) for _ in range(2))
    for batch, rows in ((0, 3), (1, 1), (2, 5), (3, 17)):
        x = rng.uniform(-1, 1, (batch, rows, length)).astype(np.float32)
        (got,) = compiled(x, g, b)
        np.testing.assert_allclose(got, _layer_norm_f64(x, g, b), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize(
    "text", [_softmax("?x4x?"), _layer_norm("?x4x32", 32)], ids=["softmax", "layer_norm"]
)
def test_a_dynamic_result_is_the_callers_buffer(text: str) -> None:
    """The kernel writes the out-param the caller passes: no copy of the result (before, every
    call malloc'd the result and copied it out: a 50 MB relu 12x slower). The only buffer a
    call allocates is the pipelined softmax's two scratch rows a thread."""
    with make_context():
        module = compiler.parse_module(compiler.Chunk(text, 1), ir.Context.current)
        compiler.run_passes(module, compiler.parse_pipeline("lower-to-llvm{threads=2 target=x86-64-v3}"))
        (entry,) = [
            op
            for op in module.body.operations
            if op.name == "llvm.func" and op.attributes["sym_name"].value == "main"
        ]
        body = str(entry)
    assert "memcpy" not in body
    assert body.count("llvm.call @_mlir_memref_to_llvm_alloc") == (1 if "softmax" in text else 0)
