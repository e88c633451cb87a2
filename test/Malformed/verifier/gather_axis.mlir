// Verifier rule, from invalid-indexing.mlir.
func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op axis 2 is out of range for rank 2}}
  %0 = "versa.gather"(%t, %i) {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
