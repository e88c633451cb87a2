// Verifier rule, from invalid.mlir.
func.func @pad_value_kind(%x: tensor<4x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.pad' op attribute 'value' must be a float, got "zero"}}
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0, 0>, value = "zero"} : (tensor<4x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}
