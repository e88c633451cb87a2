// Verifier rule, from invalid.mlir.
func.func @transpose_result_shape(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'versa.transpose' op result shape [2, 3, 4] does not match the expected shape [4, 3, 2]}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
