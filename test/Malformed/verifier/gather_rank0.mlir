// Verifier rule, from invalid-indexing.mlir.
func.func @gather_rank0(%t: tensor<f32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{'versa.gather' op input must have rank >= 1}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<f32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
