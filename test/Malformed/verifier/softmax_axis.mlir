// Verifier rule, from invalid.mlir.
func.func @softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op axis 2 is out of range for rank 2}}
  %0 = "versa.softmax"(%x) {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
