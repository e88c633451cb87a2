// Verifier rule, from invalid.mlir.
func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{'versa.transpose' op attribute 'perm' must have 3 elements, got 2}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}
