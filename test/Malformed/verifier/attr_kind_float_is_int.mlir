// Verifier rule, from invalid.mlir.
func.func @attr_kind_float_is_int(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.clamp' op attribute 'min' must be a float, got 0 : i64}}
  %0 = "versa.clamp"(%x) {min = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
