// Verifier rule, from invalid.mlir.
func.func @slice_stride(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'versa.slice' op stride 0 of dim 1 must be positive}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 10>, strides = array<i64: 1, 0>} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}
