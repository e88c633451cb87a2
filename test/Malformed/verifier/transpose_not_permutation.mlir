// Verifier rule, from invalid.mlir.
func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) -> tensor<3x3x4xf32> {
  // expected-error @+1 {{'versa.transpose' op perm [1, 1, 2] is not a permutation of 0..2}}
  %0 = "versa.transpose"(%x) {perm = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<3x3x4xf32>
  return %0 : tensor<3x3x4xf32>
}
