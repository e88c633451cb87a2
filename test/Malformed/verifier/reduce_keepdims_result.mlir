// Verifier rule, from invalid.mlir.
func.func @reduce_keepdims_result(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op result shape [2] does not match the expected shape [2, 1]}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
