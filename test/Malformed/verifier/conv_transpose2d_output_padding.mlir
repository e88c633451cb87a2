// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x13x11xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op output_padding 2 of the height must be smaller than its stride or dilation}}
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x13x11xf32>
  return %0 : tensor<1x2x13x11xf32>
}
