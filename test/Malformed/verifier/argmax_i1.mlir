// Verifier rule, from invalid-indexing.mlir.
func.func @argmax_i1(%x: tensor<3x4xi1>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x4xi1>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
