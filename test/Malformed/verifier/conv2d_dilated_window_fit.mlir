// Verifier rule, from invalid.mlir.
func.func @conv2d_dilated_window_fit(%x: tensor<1x3x8x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x1xf32> {
  // expected-error @+1 {{'versa.conv2d' op window of extent 5 does not fit in padded width = 4}}
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: 2, 2>} : (tensor<1x3x8x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}
