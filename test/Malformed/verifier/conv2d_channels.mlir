// Verifier rule, from invalid.mlir.
func.func @conv2d_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op filter has 2 input channels per group, expected 3 (= 3 channels / 1 groups)}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
