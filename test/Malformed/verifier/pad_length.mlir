// Verifier rule, from invalid.mlir.
func.func @pad_length(%x: tensor<4x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.pad' op attribute 'high' must have 2 elements, got 1}}
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0>} : (tensor<4x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}
