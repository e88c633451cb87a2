// Verifier rule, from invalid.mlir.
func.func @slice_limit_beyond_size(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op dim 1: need 0 <= start (0) <= limit (11) <= size (10)}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 11>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}
