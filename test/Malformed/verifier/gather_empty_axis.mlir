// Verifier rule, from invalid-indexing.mlir.
func.func @gather_empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op cannot gather from dim 0 of size 0}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<0x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
