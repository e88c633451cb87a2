"""Dynamic dims (`?`) through convert-versa-to-linalg and lower-to-llvm, run at several sizes
against the NumPy reference: one compile per function, called with batch 1, 3 and 17.

JitFunction takes static signatures only, so `_compile` runs the pipeline and the
ExecutionEngine itself: after lowering, results are out-params (`buffer-results-to-out-params`),
so each call passes the output arrays, shaped by the reference, as the last descriptors.
"""

import ctypes

import numpy as np
import pytest
from torch_mlir.runtime import np_to_memref
from versa import compiler
from versa.context import make_context
from versa.cpu import openmp
from versa.mlir import ExecutionEngine, ir
from versa.reference import interpret

BATCHES = (1, 3, 17)
CASES = {  # name: (@f's signature and body, `?` dims; input shapes, B for the dynamic size)
    "matmul_add": (
        """\
(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %m = "versa.matmul"(%a, %b) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %r = "versa.add"(%m, %c) : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>""",
        ["Bx64", "64x32", "Bx32"],
    ),
    "broadcast_compare": (
        """\
(%a: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %g = "versa.compare"(%a, %b) {predicate = "gt"} : (tensor<?x8xf32>, tensor<1x8xf32>) ->
      tensor<?x8xi1>
  %y = "versa.select"(%g, %a, %b) : (tensor<?x8xi1>, tensor<?x8xf32>, tensor<1x8xf32>) ->
      tensor<?x8xf32>
  return %y : tensor<?x8xf32>""",
        ["Bx8", "1x8"],
    ),
    "batch_matmul": (
        """\
(%a: tensor<?x4x8x16xf32>, %b: tensor<?x4x16x8xf32>) -> tensor<?x4x8x8xf32> {
  %y = "versa.matmul"(%a, %b) : (tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>) ->
      tensor<?x4x8x8xf32>
  return %y : tensor<?x4x8x8xf32>""",
        ["Bx4x8x16", "Bx4x16x8"],
    ),
    "broadcast_matmul": (
        """\
(%a: tensor<?x8x16xf32>, %b: tensor<1x16x8xf32>) -> tensor<?x8x8xf32> {
  %y = "versa.matmul"(%a, %b) : (tensor<?x8x16xf32>, tensor<1x16x8xf32>) ->
      tensor<?x8x8xf32>
  return %y : tensor<?x8x8xf32>""",
        ["Bx8x16", "1x16x8"],
    ),
    "reductions": (
        """\
(%x: tensor<?x64xf32>) -> (tensor<?x1xf32>, tensor<64xf32>) {
  %m = "versa.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<?x64xf32>)
      -> tensor<?x1xf32>
  %s = "versa.reduce_max"(%x) {axes = array<i64: 0>} : (tensor<?x64xf32>) -> tensor<64xf32>
  return %m, %s : tensor<?x1xf32>, tensor<64xf32>""",
        ["Bx64"],
    ),
    "norms": (
        """\
(%x: tensor<?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
  %s = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = "versa.layer_norm"(%s, %g, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} :
      (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>""",
        ["Bx64", "64", "64"],
    ),
    "movement": (
        """\
(%x: tensor<?x64xf32>, %c: tensor<?x3xf32>) -> (tensor<64x?xf32>, tensor<?x8x8xf32>,
    tensor<?x67xf32>, tensor<?x68xf32>) {
  %t = "versa.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<?x64xf32>) ->
      tensor<64x?xf32>
  %r = "versa.reshape"(%x) : (tensor<?x64xf32>) -> tensor<?x8x8xf32>
  %k = "versa.concat"(%x, %c) {axis = 1 : i64} : (tensor<?x64xf32>, tensor<?x3xf32>) ->
      tensor<?x67xf32>
  %p = "versa.pad"(%x) {low = array<i64: 1, 2>, high = array<i64: 0, 2>, value = 0.5 : f32}
      : (tensor<?x64xf32>) -> tensor<?x68xf32>
  return %t, %r, %k, %p : tensor<64x?xf32>, tensor<?x8x8xf32>, tensor<?x67xf32>,
      tensor<?x68xf32>""",
        ["Bx64", "Bx3"],
    ),
    "gather": (
        """\
(%t: tensor<?x16xf32>, %i: tensor<?xi64>) -> tensor<?x16xf32> {
  %y = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<?x16xf32>, tensor<?xi64>) ->
      tensor<?x16xf32>
  return %y : tensor<?x16xf32>""",
        ["Bx16", "i:B"],
    ),
    "conv_pools": (
        """\
(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> (tensor<?x8x4x4xf32>,
    tensor<?x4x4x4xf32>, tensor<?x4x4x4xf32>) {
  %c = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NCHW"} : (tensor<?x4x8x8xf32>,
      tensor<8x4x3x3xf32>) -> tensor<?x8x4x4xf32>
  %m = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<?x4x8x8xf32>) ->
      tensor<?x4x4x4xf32>
  %a = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
      padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<?x4x8x8xf32>) ->
      tensor<?x4x4x4xf32>
  return %c, %m, %a : tensor<?x8x4x4xf32>, tensor<?x4x4x4xf32>, tensor<?x4x4x4xf32>""",
        ["Bx4x8x8", "8x4x3x3"],
    ),
    "batch_norm_grouped_conv": (
        """\
(%x: tensor<?x4x6x6xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>,
    %w: tensor<4x2x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %v = "versa.constant"() {value = dense<4.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %n = "versa.batch_norm"(%x, %s, %b, %m, %v) {epsilon = 1.0e-5 : f32, layout = "NCHW"} :
      (tensor<?x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) ->
      tensor<?x4x6x6xf32>
  %y = "versa.conv2d"(%n, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>, groups = 2 : i64, layout = "NCHW"} :
      (tensor<?x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<?x4x6x6xf32>
  return %y : tensor<?x4x6x6xf32>""",
        ["Bx4x6x6", "4", "4", "4", "4x2x3x3"],
    ),
    "scatter": (
        """\
(%x: tensor<?x4xf32>, %i: tensor<?x1xi64>, %u: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = "versa.scatter"(%x, %i, %u) {reduction = "add"} :
      (tensor<?x4xf32>, tensor<?x1xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>""",
        ["Bx4", "i:Bx1", "Bx4"],
    ),
    "depthwise_nhwc": (
        """\
(%x: tensor<?x8x8x4xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<?x8x8x4xf32> {
  %y = "versa.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>, groups = 4 : i64, layout = "NHWC"} : (tensor<?x8x8x4xf32>,
      tensor<3x3x1x4xf32>) -> tensor<?x8x8x4xf32>
  return %y : tensor<?x8x8x4xf32>""",
        ["Bx8x8x4", "3x3x1x4"],
    ),
    "scans": (
        """\
(%x: tensor<?x16xf32>) -> (tensor<?xi64>, tensor<?x16xf32>) {
  %a = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<?x16xf32>) -> tensor<?xi64>
  %c = "versa.cumsum"(%x) {axis = 1 : i64} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %a, %c : tensor<?xi64>, tensor<?x16xf32>""",
        ["Bx16"],
    ),
    "reshape_two_dynamic": (
        """\
(%x: tensor<?x?x24xf32>) -> (tensor<?x?x4x6xf32>, tensor<?xf32>) {
  %y = "versa.reshape"(%x) : (tensor<?x?x24xf32>) -> tensor<?x?x4x6xf32>
  %f = "versa.reshape"(%x) : (tensor<?x?x24xf32>) -> tensor<?xf32>
  return %y, %f : tensor<?x?x4x6xf32>, tensor<?xf32>""",
        ["BxBx24"],
    ),
    "fused": (
        """\
(%a: tensor<?x64xf32>, %b: tensor<64xf32>, %w: tensor<64x32xf32>) -> (tensor<?xf32>,
    tensor<?x32xf32>) {
  %r = "versa.fused"() ({
    %s = "versa.add"(%a, %b) : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
    %m = "versa.mul"(%s, %s) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
    %t = "versa.reduce_sum"(%m) {axes = array<i64: 1>} : (tensor<?x64xf32>) -> tensor<?xf32>
    "versa.yield"(%t) : (tensor<?xf32>) -> ()
  }) {kind = "reduction"} : () -> tensor<?xf32>
  %e = "versa.fused"() ({
    %m = "versa.matmul"(%a, %w) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
    %n = "versa.relu"(%m) : (tensor<?x32xf32>) -> tensor<?x32xf32>
    "versa.yield"(%n) : (tensor<?x32xf32>) -> ()
  }) {kind = "epilogue"} : () -> tensor<?x32xf32>
  return %r, %e : tensor<?xf32>, tensor<?x32xf32>""",
        ["Bx64", "64", "64x32"],
    ),
    "quantize": (
        """\
(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = "versa.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %q = "versa.quantize"(%x, %s, %z) : (tensor<?x16xf32>, tensor<f32>, tensor<i8>) ->
      tensor<?x16xi8>
  %y = "versa.dequantize"(%q, %s, %z) : (tensor<?x16xi8>, tensor<f32>, tensor<i8>) ->
      tensor<?x16xf32>
  return %y : tensor<?x16xf32>""",
        ["Bx16"],
    ),
}


def _parse(text: str) -> ir.Module:
    return compiler.parse_module(compiler.Chunk(text, 1), make_context())


def _compile(text: str, opt_level: int) -> ExecutionEngine:
    """`@f` lowered by lower-to-llvm and JIT-compiled, its C interface emitted."""
    module = _parse(text)
    with module.context:
        module.body.operations[0].attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        compiler.run_passes(module, compiler.parse_pipeline(f"lower-to-llvm{{opt-level={opt_level}}}"))
        return ExecutionEngine(module, opt_level=2, shared_libs=openmp.shared_libraries())


def _call(engine: ExecutionEngine, inputs: list[np.ndarray], outputs: list[np.ndarray]) -> None:
    descriptors = [np_to_memref.get_ranked_memref_descriptor(a) for a in (*inputs, *outputs)]
    engine.invoke("f", *(ctypes.pointer(ctypes.pointer(d)) for d in descriptors))


def _inputs(shapes: list[str], batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    arrays = []
    for spec in shapes:
        shape = [batch if d == "B" else int(d) for d in spec.removeprefix("i:").split("x")]
        if spec.startswith("i:"):  # indices, some negative or out of range (wrapped, clamped, dropped)
            arrays.append(rng.integers(-batch - 2, batch + 2, size=shape).astype(np.int64))
        else:  # small integers: every partial sum is exact in f32
            arrays.append(rng.integers(-4, 5, size=shape).astype(np.float32))
    return arrays


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("name", sorted(CASES))
def test_dynamic_batch(name: str, opt_level: int) -> None:
    body, shapes = CASES[name]
    text = f"func.func @f{body}\n}}\n"
    engine, reference = _compile(text, opt_level), _parse(text)
    rng = np.random.default_rng(0)
    for batch in BATCHES:
        inputs = _inputs(shapes, batch, rng)
        with reference.context:
            expected = interpret(reference.body.operations[0], inputs)
        # np.full, not full_like: a reference result may be a view (a transpose), not C-contiguous
        outputs = [np.full(e.shape, np.nan if e.dtype.kind == "f" else -7, e.dtype) for e in expected]
        _call(engine, inputs, outputs)
        for got, want in zip(outputs, expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{name} at batch {batch}")
