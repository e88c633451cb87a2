"""Programs whose bufferization needs copies run and match NumPy, and the JIT is never handed a
module it cannot resolve (issue: memref.copy crashed the JIT through `memrefCopy`).

Views (reshape, slice, transpose, concat, broadcast_to) of values that are also used elsewhere
are returned as results, with and without versa-fuse; every input array must be unchanged after
the call (inputs belong to the caller).
"""

import subprocess
import sys

import numpy as np
import pytest
from conftest import Compiled, reference
from versa.diagnostics import CompileError

CONCAT_RESHAPED = """
func.func @main(%a: tensor<6x3xf32>, %b: tensor<6x2xf32>) -> (tensor<15x2xf32>, tensor<6x5xf32>) {
  %0 = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<6x3xf32>, tensor<6x2xf32>) -> tensor<6x5xf32>
  %1 = "versa.reshape"(%0) : (tensor<6x5xf32>) -> tensor<15x2xf32>
  %2 = "versa.abs"(%0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
  return %1, %2 : tensor<15x2xf32>, tensor<6x5xf32>
}
"""

TWO_PADDED_CONVS = """
func.func @main(%x: tensor<1x8x8x8xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x3x3xf32>)
    -> tensor<1x8x8x8xf32> {
  %0 = "versa.conv2d"(%x, %w1) {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = "versa.relu"(%0) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = "versa.conv2d"(%1, %w2) {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}
"""

# NHWC, stride 2 and a residual add: the ResNet block's other shapes.
RESIDUAL_NHWC = """
func.func @main(%x: tensor<1x9x9x4xf32>, %w1: tensor<3x3x4x4xf32>, %w2: tensor<3x3x4x4xf32>)
    -> tensor<1x5x5x4xf32> {
  %0 = "versa.conv2d"(%x, %w1) {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"}
      : (tensor<1x9x9x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x5x5x4xf32>
  %1 = "versa.relu"(%0) : (tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %2 = "versa.conv2d"(%1, %w2) {padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"}
      : (tensor<1x5x5x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x5x5x4xf32>
  %3 = "versa.add"(%2, %0) : (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  return %3 : tensor<1x5x5x4xf32>
}
"""

# Out-of-place inserts into an argument (linalg-level input): the argument is copied first.
INSERT_INTO_ARGUMENT = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>) {
  %0 = tensor.insert_slice %a into %b[1, 1] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x5xf32>
  %1 = tensor.insert_slice %a into %b[3, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x5xf32>
  return %0, %1 : tensor<6x5xf32>, tensor<6x5xf32>
}
"""

# view op -> (attributes, result type) applied to a tensor<4x6xf32>
VIEWS = {
    "reshape": ("", "tensor<6x4xf32>"),
    "slice": (
        "{starts = array<i64: 1, 0>, limits = array<i64: 4, 6>, strides = array<i64: 2, 3>}",
        "tensor<2x2xf32>",
    ),
    "transpose": ("{perm = array<i64: 1, 0>}", "tensor<6x4xf32>"),
    "broadcast_to": ("", "tensor<3x4x6xf32>"),
}


def run_and_check(text: str, pipeline: str, inputs: list[np.ndarray] | None = None) -> None:
    compiled = Compiled(text, pipeline)
    inputs = inputs if inputs is not None else compiled.random_inputs()
    before = [a.copy() for a in inputs]
    got = compiled.jit(*inputs)
    for want, g in zip(reference(text, inputs), got, strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)
    for b, a in zip(before, inputs, strict=True):
        np.testing.assert_array_equal(a, b)  # inputs are never written


PIPELINES = ["lower-to-llvm", "versa-fuse,lower-to-llvm", "lower-to-llvm{opt-level=0}"]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "text", [CONCAT_RESHAPED, TWO_PADDED_CONVS, RESIDUAL_NHWC], ids=["concat", "convs", "nhwc"]
)
def test_reproducers_match_numpy(text: str, pipeline: str) -> None:
    run_and_check(text, pipeline)


def test_insert_into_argument_leaves_it_alone() -> None:
    compiled = Compiled(INSERT_INTO_ARGUMENT)
    a, b = compiled.random_inputs()
    kept = b.copy()
    r0, r1 = compiled.jit(a, b)
    np.testing.assert_array_equal(b, kept)
    want0, want1 = b.copy(), b.copy()
    want0[1:3, 1:4], want1[3:5, 2:5] = a, a
    np.testing.assert_array_equal(r0, want0)
    np.testing.assert_array_equal(r1, want1)


def view_program(op: str, of_argument: bool) -> str:
    attrs, result = VIEWS[op]
    source = "%a" if of_argument else "%s"
    return f"""
func.func @main(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> ({result}, tensor<4x6xf32>) {{
  %s = "versa.add"(%a, %b) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %v = "versa.{op}"({source}) {attrs} : (tensor<4x6xf32>) -> {result}
  %u = "versa.exp"({source}) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %w = "versa.mul"(%u, %s) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %v, %w : {result}, tensor<4x6xf32>
}}
"""


@pytest.mark.parametrize("pipeline", PIPELINES[:2])
@pytest.mark.parametrize("of_argument", [False, True], ids=["of_value", "of_argument"])
@pytest.mark.parametrize("op", sorted(VIEWS))
def test_views_returned_and_reused(op: str, of_argument: bool, pipeline: str) -> None:
    run_and_check(view_program(op, of_argument), pipeline)


@pytest.mark.parametrize("pipeline", PIPELINES[:2])
def test_concat_of_reused_values_returned_twice(pipeline: str) -> None:
    text = """
func.func @main(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>)
    -> (tensor<3x6xf32>, tensor<18xf32>, tensor<3x2xf32>) {
  %n = "versa.neg"(%a) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = "versa.concat"(%n, %b) {axis = 1 : i64} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<3x6xf32>
  %r = "versa.reshape"(%c) : (tensor<3x6xf32>) -> tensor<18xf32>
  return %c, %r, %n : tensor<3x6xf32>, tensor<18xf32>, tensor<3x2xf32>
}
"""
    run_and_check(text, pipeline)


UNKNOWN_FUNCTION = """
func.func private @mystery(f32) -> f32

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = func.call @mystery(%x) : (f32) -> f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_unknown_external_function_is_a_located_diagnostic() -> None:
    with pytest.raises(CompileError) as info:
        Compiled(UNKNOWN_FUNCTION)
    (diagnostic,) = info.value.diagnostics
    assert "function 'mystery' is not provided by the Versa runtime" in diagnostic.message
    assert "'llvm.call'" in diagnostic.message
    assert (diagnostic.line, diagnostic.col) == (9, 10)


def test_unknown_external_function_in_versa_run(tmp_path) -> None:
    path = tmp_path / "ext.mlir"
    path.write_text(UNKNOWN_FUNCTION)
    run = subprocess.run(
        [sys.executable, "-m", "versa.tools.versa_run", str(path), "--random"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stderr
    assert f"{path}:9:10: error: function 'mystery' is not provided" in run.stderr
    assert "Traceback" not in run.stderr
