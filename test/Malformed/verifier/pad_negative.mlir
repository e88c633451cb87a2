// Verifier rule, from invalid.mlir.
func.func @pad_negative(%x: tensor<4x4xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'versa.pad' op padding amounts must be non-negative}}
  %0 = "versa.pad"(%x) {low = array<i64: -1, 0>, high = array<i64: 0, 1>} : (tensor<4x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
