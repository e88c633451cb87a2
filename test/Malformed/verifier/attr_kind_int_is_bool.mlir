// Verifier rule, from invalid.mlir.
func.func @attr_kind_int_is_bool(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op attribute 'axis' must be an integer, got true}}
  %0 = "versa.softmax"(%x) {axis = true} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
