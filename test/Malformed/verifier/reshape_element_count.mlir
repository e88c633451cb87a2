// Verifier rule, from invalid.mlir.
func.func @reshape_element_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'versa.reshape' op element count differs: 24 (input) vs 25 (result)}}
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}
