// Verifier rule, from invalid.mlir.
func.func @max_pool2d_negative_padding(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x6x8xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op attribute 'padding' must be non-negative, got [-1, 0, -1, 0]}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 1, 1>, padding = array<i64: -1, 0, -1, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x8xf32>
  return %0 : tensor<1x3x6x8xf32>
}
