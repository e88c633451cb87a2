// Verifier rule, from invalid.mlir.
func.func @attr_kind_bool_is_int(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op attribute 'keepdims' must be true or false, got 1 : i64}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
