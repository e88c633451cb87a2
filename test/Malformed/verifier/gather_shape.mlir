// Verifier rule, from invalid-indexing.mlir.
func.func @gather_shape(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) -> tensor<10x6xf32> {
  // expected-error @+1 {{'versa.gather' op result shape [10, 6] does not match the expected shape [10, 2, 3]}}
  %0 = "versa.gather"(%t, %i) {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<10x6xf32>
  return %0 : tensor<10x6xf32>
}
