// RUN: versa-fuzz --replay %s
// Found by a hand-written zero-size probe of every op; minimal as written.
// compile-error in O3 and fused (threads=2): pass 'versa-row-kernels' failed: MLIRError:
// offset 1 is out-of-bounds: 0 >= 0 (a tensor.extract_slice of the row-kernel's thread chunk).
// Fixed: softmax over an empty last axis (rows of length 0, split across 2 threads) built a
// slice MLIR refuses. versa-row-kernels (row_axes) now leaves an op without elements to
// convert-versa-to-linalg (test/Transforms/versa-row-kernels.mlir, @negative_empty).
func.func @main(%arg0: tensor<2x0xf32>) -> tensor<2x0xf32> {
  %0 = "versa.softmax"(%arg0) {axis = 1 : i64} : (tensor<2x0xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}
