// Verifier rule, from invalid.mlir.
func.func @slice_negative_start(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 0: need 0 <= start (-1) <= limit (8) <= size (8)}}
  %0 = "versa.slice"(%x) {starts = array<i64: -1, 0>, limits = array<i64: 8, 10>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}
