// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op result shape [1, 2, 7, 7] does not match the expected shape [1, 2, 11, 11]}}
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}
