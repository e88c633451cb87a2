// Verifier rule, from invalid-indexing.mlir.
func.func @cumsum_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.cumsum' op axis 2 is out of range for rank 2}}
  %0 = "versa.cumsum"(%x) {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
