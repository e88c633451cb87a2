// Verifier rule, from invalid-indexing.mlir.
func.func @argmax_keepdims_shape(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op result shape [3] does not match the expected shape [3, 1]}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64, keepdims = true} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
