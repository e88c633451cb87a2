// Verifier rule, from invalid-indexing.mlir.
func.func @argmax_empty(%x: tensor<3x0xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'versa.reduce_argmax' op cannot take the argmax over dim 1 of size 0}}
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x0xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
