// Verifier rule, from invalid.mlir.
func.func @missing_required_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op requires attribute 'kernel'}}
  %0 = "versa.max_pool2d"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}
