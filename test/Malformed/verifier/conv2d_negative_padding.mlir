// Verifier rule, from invalid.mlir.
func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'padding' must be non-negative, got [-1, 0, -1, 0]}}
  %0 = "versa.conv2d"(%x, %w) {padding = array<i64: -1, 0, -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32>
  return %0 : tensor<1x4x4x6xf32>
}
