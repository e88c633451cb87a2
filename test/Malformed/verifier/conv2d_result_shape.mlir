// Verifier rule, from invalid.mlir.
func.func @conv2d_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'versa.conv2d' op result shape [1, 4, 8, 8] does not match the expected shape [1, 4, 6, 6]}}
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}
