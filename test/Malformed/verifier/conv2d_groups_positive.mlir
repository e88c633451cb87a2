// Verifier rule, from invalid.mlir.
func.func @conv2d_groups_positive(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'versa.conv2d' op attribute 'groups' must be positive, got 0}}
  %0 = "versa.conv2d"(%x, %w) {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
