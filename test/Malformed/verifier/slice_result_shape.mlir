// Verifier rule, from invalid.mlir.
func.func @slice_result_shape(%x: tensor<8x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'versa.slice' op result shape [4, 10] does not match the expected shape [3, 10]}}
  %0 = "versa.slice"(%x) {starts = array<i64: 0, 0>, limits = array<i64: 8, 10>, strides = array<i64: 3, 1>} : (tensor<8x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
