// Verifier rule, from invalid.mlir.
func.func @attr_kind_int_is_float(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.softmax' op attribute 'axis' must be an integer, got 1.000000e+00 : f32}}
  %0 = "versa.softmax"(%x) {axis = 1.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
