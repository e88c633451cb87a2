// Verifier rule, from invalid.mlir.
// NHWC reads the filter as [KH, KW, C/groups, F].
func.func @conv2d_channels_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{'versa.conv2d' op filter has 2 input channels per group, expected 3 (= 3 channels / 1 groups)}}
  %0 = "versa.conv2d"(%x, %w) {layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}
