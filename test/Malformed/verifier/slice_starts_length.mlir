// Verifier rule, from invalid.mlir.
func.func @slice_starts_length(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op attribute 'starts' must have 2 elements, got 1}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0>, limits = array<i64: 8, 10>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}
