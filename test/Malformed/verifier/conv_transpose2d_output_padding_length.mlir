// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_output_padding_length(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op attribute 'output_padding' must have 2 elements, got 1}}
  %0 = "versa.conv_transpose2d"(%x, %w) {output_padding = array<i64: 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}
