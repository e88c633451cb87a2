"""versa-static-tiles: ops with dynamic dims run as loops over static tiles (full tiles, then
smaller ones, the rest padded with zeros). One compile per function serves every size; each
size must match the NumPy reference, including a padded rest, none (a multiple of the tile),
zero rows, and rows beyond one full tile."""

import numpy as np
import pytest
from versa import tolerance
from versa.compiler import parse_pipeline, run_passes
from versa.context import make_context
from versa.cpu.runtime import JitFunction
from versa.mlir import ir
from versa.reference import interpret

# name -> (function text, the input shapes for one size n: the dynamic dims become n)
FUNCTIONS = {
    "matmul_bias_gelu": (
        """func.func @f(%a: tensor<?x48xf32>, %b: tensor<48x40xf32>, %c: tensor<40xf32>) -> tensor<?x40xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x48xf32>, tensor<48x40xf32>) -> tensor<?x40xf32>
  %1 = "versa.add"(%0, %c) : (tensor<?x40xf32>, tensor<40xf32>) -> tensor<?x40xf32>
  %2 = "versa.gelu"(%1) : (tensor<?x40xf32>) -> tensor<?x40xf32>
  return %2 : tensor<?x40xf32>
}""",
        lambda n: [(n, 48), (48, 40), (40,)],
    ),
    "batch_matmul": (
        """func.func @f(%a: tensor<?x12x20xf32>, %b: tensor<?x20x9xf32>) -> tensor<?x12x9xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<?x12x20xf32>, tensor<?x20x9xf32>) -> tensor<?x12x9xf32>
  return %0 : tensor<?x12x9xf32>
}""",
        lambda n: [(n, 12, 20), (n, 20, 9)],
    ),
    "two_dynamic_dims_reduce": (
        """func.func @f(%x: tensor<?x?x33xf32>) -> tensor<?x?xf32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 2>} : (tensor<?x?x33xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}""",
        lambda n: [(3, n, 33)],
    ),
    "softmax_rows": (
        """func.func @f(%x: tensor<?x70xf32>) -> tensor<?x70xf32> {
  %0 = "versa.softmax"(%x) {axis = 1 : i64} : (tensor<?x70xf32>) -> tensor<?x70xf32>
  return %0 : tensor<?x70xf32>
}""",
        lambda n: [(n, 70)],
    ),
    "attention": (  # two dynamic dims, a softmax over a dynamic row, a contraction over it
        """func.func @f(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>, %v: tensor<?x16xf32>)
    -> tensor<?x16xf32> {
  %0 = "versa.transpose"(%k) {perm = array<i64: 1, 0>} : (tensor<?x16xf32>) -> tensor<16x?xf32>
  %1 = "versa.matmul"(%q, %0) : (tensor<?x16xf32>, tensor<16x?xf32>) -> tensor<?x?xf32>
  %2 = "versa.softmax"(%1) {axis = 1 : i64} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = "versa.matmul"(%2, %v) : (tensor<?x?xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  return %3 : tensor<?x16xf32>
}""",
        lambda n: [(n, 16), (n + 3, 16), (n + 3, 16)],
    ),
    "conv_relu_batch": (
        """func.func @f(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x4x4xf32> {
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>}
      : (tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x4x4xf32>
  %1 = "versa.relu"(%0) : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
  return %1 : tensor<?x8x4x4xf32>
}""",
        lambda n: [(n, 3, 9, 9), (8, 3, 3, 3)],
    ),
}
TILE = 8  # small, so that a few rows cover the full-tile loop and every remainder branch
SIZES = (0, 1, 5, 8, 15, 16, 23)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_one_compile_serves_every_size(name, threads):
    text, shapes_of = FUNCTIONS[name]
    pipeline = f"lower-to-llvm{{threads={threads} dynamic-tile={TILE}}}"
    with make_context(), ir.Location.unknown():
        compiled = JitFunction(ir.Module.parse(text), pipeline=pipeline, cache=False)
        kept = ir.Module.parse(text)  # the function lives as long as its module
        reference = kept.body.operations[0]
        (bound,) = tolerance.for_function(reference)
        rng = np.random.default_rng(7)
        for n in SIZES:
            inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes_of(n)]
            (want,) = interpret(reference, inputs)
            (got,) = compiled(*inputs)
            assert tolerance.check(got, want, bound) is None, (n, tolerance.check(got, want, bound))


@pytest.mark.parametrize(("name", "rows"), [("batch_matmul", [1, 8, 8]), ("conv_relu_batch", [1])])
def test_every_tile_is_static_and_one_function_serves_each_size(name, rows):
    """After the pass, the op runs in static functions only: a contraction's full tiles of 8,
    its zero-padded rest (a tile of 8 is the smallest) and one row alone; a conv runs an image
    at a time."""
    text, _ = FUNCTIONS[name]
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        run_passes(
            module, parse_pipeline(f"convert-versa-to-linalg,canonicalize,versa-static-tiles{{tile={TILE}}}")
        )
        contractions = [
            op for op in _walk(module) if op.name in ("linalg.batch_matmul", "linalg.conv_2d_nchw_fchw")
        ]
        found = sorted(ir.RankedTensorType(op.operands[0].type).shape[0] for op in contractions)
    assert found == rows


def _walk(module: ir.Module) -> list[ir.Operation]:
    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    return ops


@pytest.mark.parametrize(("rows", "found"), [(1, [1]), (4, [1, 4])])
def test_a_contraction_over_two_dynamic_dims_tiles_both(rows, found):
    """`q @ k.T` over a dynamic sequence: N in tiles, and M in tiles of `rows` (GEMM tiles, not
    one row's GEMV per call) with its rest one row alone or zero-padded."""
    text, _ = FUNCTIONS["attention"]
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        pipeline = f"convert-versa-to-linalg,canonicalize,versa-static-tiles{{tile={TILE} rows={rows}}}"
        run_passes(module, parse_pipeline(pipeline))
        scores = [  # q @ k.T: K = 16, N in tiles of up to 8
            ir.RankedTensorType(op.operands[0].type).shape[0]
            for op in _walk(module)
            if op.name == "linalg.matmul" and ir.RankedTensorType(op.operands[0].type).shape[1] == 16
        ]
    assert sorted(set(scores)) == found
