// Verifier rule, from invalid-indexing.mlir.
func.func @conv_transpose2d_integer(%x: tensor<1x4x5x5xi32>, %w: tensor<4x2x3x3xi32>) -> tensor<1x2x7x7xi32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op expects a float element type, got i32}}
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xi32>, tensor<4x2x3x3xi32>) -> tensor<1x2x7x7xi32>
  return %0 : tensor<1x2x7x7xi32>
}
