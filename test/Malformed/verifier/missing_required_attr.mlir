// Verifier rule, from invalid.mlir.
func.func @missing_required_attr(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op requires attribute 'axis'}}
  %0 = "versa.softmax"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
