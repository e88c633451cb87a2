// Verifier rule, from invalid.mlir.
func.func @conv2d_window_fit(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op window of extent 3 does not fit in padded height = 2}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}
