// Verifier rule, from invalid-indexing.mlir.
func.func @argmax_result_type(%x: tensor<3x4xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'versa.reduce_argmax' op result element type must be i64, got i32}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
