// Verifier rule, from invalid.mlir.
func.func @conv2d_groups_output_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op groups = 4 does not divide output channels 6}}
  %0 = "versa.conv2d"(%x, %w) {groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}
