// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x3x7x7xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op groups = 3 does not divide input channels 4}}
  %0 = "versa.conv_transpose2d"(%x, %w) {groups = 3 : i64} : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}
