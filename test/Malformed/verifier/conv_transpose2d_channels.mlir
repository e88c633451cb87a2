// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op filter has 3 input channels, expected 4 (the input's dim 1)}}
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}
