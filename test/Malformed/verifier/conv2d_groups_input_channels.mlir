// Verifier rule, from invalid.mlir.
func.func @conv2d_groups_input_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op groups = 4 does not divide input channels 6}}
  %0 = "versa.conv2d"(%x, %w) {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}
