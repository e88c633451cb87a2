// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_padding(%x: tensor<1x4x2x2xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op output height -2 is not positive (padding too large)}}
  %0 = "versa.conv_transpose2d"(%x, %w) {padding = array<i64: 2, 0, 2, 0>} : (tensor<1x4x2x2xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}
