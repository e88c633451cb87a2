// Verifier rule, from invalid.mlir.
func.func @slice_start_after_limit(%x: tensor<8x10xf32>) -> tensor<0x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 0: need 0 <= start (5) <= limit (4) <= size (8)}}
  %0 = "versa.slice"(%x) {starts = array<i64: 5, 0>, limits = array<i64: 4, 10>} : (tensor<8x10xf32>) -> tensor<0x10xf32>
  return %0 : tensor<0x10xf32>
}
