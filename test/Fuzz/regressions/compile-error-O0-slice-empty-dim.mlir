// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 2027 (program 369, generated), reduced by versa-fuzz.
// compile-error in every pipeline: offset 2 is out-of-bounds: 0 >= 0 (the verifier of the
// tensor.extract_slice that convert-versa-to-linalg's lower_slice emits).
// Fixed: MLIR refuses a static offset that is not inside its dim, so a slice of a dim of size 0
// (or starting at the end of a dim: starts = limits = size) cannot be an extract_slice. A
// result without elements has nothing to copy: lower_slice now returns a tensor.empty of the
// result's shape (test/Conversion/convert-versa-to-linalg.mlir, @slice_empty).
func.func @main(%arg0: tensor<2x1x0xi32>) -> tensor<1x1x0xi32> {
  %0 = "versa.slice"(%arg0) {starts = array<i64: 1, 0, 0>, limits = array<i64: 2, 1, 0>} : (tensor<2x1x0xi32>) -> tensor<1x1x0xi32>
  return %0 : tensor<1x1x0xi32>
}
