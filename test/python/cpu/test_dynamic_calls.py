"""Calls of functions with dynamic dims (`tensor<?x64xf32>`): the shape program checks each
call's sizes against the function's symbols and ranges (`versa.dims`, `versa.dim_ranges`) and
its ops' rules before the code runs, sizes the results, and keeps a pool of them per shape;
the program survives the compile cache. One compile serves every size (versa-static-tiles,
threads split per call)."""

import json

import numpy as np
import pytest
from dynamic_programs import ADD_RELU
from versa import compiler, environment
from versa.call_shapes import ShapeError, ShapeProgram
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.diagnostics import CompileError
from versa.mlir import ir
from versa.reference import interpret
from versa.signature import find_function

PIPELINE = "lower-to-llvm{threads=2}"
ADD = """
func.func @f(%a: tensor<?x64xf32>, %b: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}"""
MATMUL = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x?xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}"""
# No versa op, a static result: the program checks the argument alone.
COLUMN_SUM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @colsum(%a: tensor<?x64xf32> {versa.dims = ["rows", 64]}) -> tensor<64xf32>
    attributes {versa.dim_ranges = {rows = array<i64: 2, -1, 2>}} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<?x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}"""


def parse(text: str) -> ir.Module:
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def compile_with(text: str, cache: bool = False) -> JitFunction:
    return JitFunction(parse(text), pipeline=PIPELINE, cache=cache)


def reference(text: str, *arrays: np.ndarray) -> list[np.ndarray]:
    module = parse(text)  # alive while its function runs
    return interpret(find_function(module, None), list(arrays))


def program(text: str) -> ShapeProgram | None:
    module = parse(text)
    return ShapeProgram.of(find_function(module, None))


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


@pytest.fixture(scope="module")
def add_relu() -> JitFunction:
    return compile_with(ADD_RELU)


@pytest.fixture(scope="module")
def matmul() -> JitFunction:
    return compile_with(MATMUL)


@pytest.mark.parametrize("batch", [1, 5, 16])
def test_elementwise_matches_the_reference_at_each_size(add_relu, batch):
    a, b = rand(batch, 64), rand(batch, 64, seed=1)
    (got,) = add_relu(a, b)
    assert got.shape == (batch, 64)
    np.testing.assert_allclose(got, reference(ADD_RELU, a, b)[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("m", "k"), [(1, 1), (3, 64), (17, 33)])
def test_matmul_matches_the_reference_at_each_size(matmul, m, k):
    a, b = rand(m, k), rand(k, 8, seed=1)
    (got,) = matmul(a, b)
    np.testing.assert_allclose(got, reference(MATMUL, a, b)[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((4, 64), (5, 64)), "argument 1 dim 0 = 5: symbol 'batch' is 4 in argument 0 (dim 0)"),
        (((17, 64), (17, 64)), "argument 0 dim 0 = 17 exceeds the maximum 16 of 'batch'"),
        (((0, 64), (0, 64)), "argument 0 dim 0 = 0 is below the minimum 1 of 'batch'"),
        (((4, 32), (4, 32)), "argument 0 dim 1 = 32: the function takes 64"),
        (((4, 64, 1), (4, 64)), "argument 0 has rank 3, the function takes rank 2"),
    ],
)
def test_arguments_against_symbols_and_ranges(add_relu, shapes, message):
    with pytest.raises(ShapeError) as caught:
        add_relu(*(np.zeros(s, np.float32) for s in shapes))
    assert str(caught.value) == message


def test_an_op_rule_refuses_the_sizes_with_its_location(matmul):
    with pytest.raises(ShapeError, match=r"contraction dims differ: K = 64 \(lhs\) vs 32 \(rhs\)") as caught:
        matmul(rand(4, 64), rand(32, 8))
    assert str(caught.value).startswith("'versa.matmul' op ")
    assert str(caught.value).endswith("(operand shapes [4, 64], [32, 8]) at -:3:8")
    assert isinstance(caught.value, ValueError)


def test_a_dynamic_dim_never_stretches():
    jit = compile_with(ADD)
    a, b = np.abs(rand(4, 64)), np.abs(rand(4, 64, seed=1))
    np.testing.assert_allclose(jit(a, b)[0], a + b, rtol=1e-6)
    with pytest.raises(ShapeError, match="operand 1 dim 0 is 1 but the result's is 4"):
        jit(a, b[:1])
    with pytest.raises(ShapeError, match="not broadcast-compatible"):
        jit(a, np.abs(rand(5, 64)))


def test_a_static_result_of_ops_without_rules():
    jit = compile_with(COLUMN_SUM)
    for rows in (2, 6):
        a = rand(rows, 64)
        np.testing.assert_allclose(jit(a)[0], a.sum(0), rtol=1e-5, atol=1e-5)
    with pytest.raises(ShapeError, match="argument 0 dim 0 = 3 is not a multiple of 2 of 'rows'"):
        jit(rand(3, 64))


# Linalg with a dynamic result: no versa op says how large the result is.
LINALG_RELU = """
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}"""


def test_a_dynamic_result_needs_shape_rules():
    with pytest.raises(CompileError, match="'tensor.empty' has no shape rule, and result 0 of the function"):
        JitFunction(parse(LINALG_RELU), cache=False)


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ('{versa.dims = ["batch"]}', "versa.dims of argument 0 must be an array of 2 entries"),
        ('{versa.dims = ["batch", 32]}', "versa.dims of argument 0: dim 1 is 32 : i64, the type says 64"),
    ],
)
def test_malformed_dims(attributes, message):
    text = f"""func.func @f(%a: tensor<?x64xf32> {attributes}) -> tensor<?x64xf32> {{
      %0 = "versa.relu"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32>
      return %0 : tensor<?x64xf32>
    }}"""
    with pytest.raises(CompileError, match=message):
        program(text)


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ("{n = array<i64: 4, 2>}", "'n' must be array<i64: min, max> or"),
        ("{n = array<i64: 1, -1, 0>}", "'n' must be array<i64: min, max> or"),
        ("{m = array<i64: 1, 2>}", "names 'm', which no argument's versa.dims has"),
    ],
)
def test_malformed_ranges(ranges, message):
    text = f"""func.func @f(%a: tensor<?xf32> {{versa.dims = ["n"]}}) -> tensor<?xf32>
        attributes {{versa.dim_ranges = {ranges}}} {{
      %0 = "versa.relu"(%a) : (tensor<?xf32>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }}"""
    with pytest.raises(CompileError, match=message):
        program(text)


def test_results_are_pooled_per_shape(add_relu):
    a4, a8 = rand(4, 64), rand(8, 64)
    first = add_relu(a4, a4)[0].ctypes.data  # dropped at once: the pool may hand it out again
    assert add_relu(a4, a4)[0].ctypes.data == first
    held = add_relu(a8, a8)[0]
    assert held.shape == (8, 64) and add_relu(a4, a4)[0].ctypes.data == first
    assert add_relu(a8, a8)[0].ctypes.data != held.ctypes.data  # a held result is never reused


def test_out_arrays_take_the_call_shapes(add_relu):
    a = rand(3, 64)
    out = np.empty((3, 64), np.float32)
    assert add_relu(a, a, out=out)[0] is out
    np.testing.assert_allclose(out, np.maximum(a + a, 0), rtol=1e-6)
    with pytest.raises(ValueError, match=r"out\[0\] must be a writeable C-contiguous float32\[3, 64\]"):
        add_relu(a, a, out=[np.empty((4, 64), np.float32)])


def test_static_functions_have_no_program():
    text = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    jit = JitFunction(parse(text), cache=False)
    assert jit.shapes is None and jit.memory.sized_per_call == 0


def test_the_program_round_trips_through_json(matmul):
    again = ShapeProgram.from_json(json.loads(json.dumps(matmul.shapes.to_json())))
    assert again.resolve(((5, 7), (7, 8))) == matmul.shapes.resolve(((5, 7), (7, 8))) == ((5, 8),)
    with pytest.raises(ShapeError, match="contraction dims differ"):
        again.resolve(((5, 7), (6, 8)))


def test_a_cache_hit_keeps_the_program(tmp_path, monkeypatch):
    monkeypatch.setenv(environment.CACHE_DIR, str(tmp_path))
    compiled = compile_with(ADD_RELU, cache=True)
    loaded = compile_with(ADD_RELU, cache=True)
    assert not compiled.from_cache and loaded.from_cache
    assert loaded.shapes.to_json() == json.loads(json.dumps(compiled.shapes.to_json()))
    for batch in (2, 9):
        a, b = rand(batch, 64), rand(batch, 64, seed=2)
        np.testing.assert_array_equal(loaded(a, b)[0], compiled(a, b)[0])
    with pytest.raises(ShapeError, match="symbol 'batch' is 2 in argument 0"):
        loaded(rand(2, 64), rand(3, 64))
