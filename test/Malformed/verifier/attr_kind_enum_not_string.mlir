// Verifier rule, from invalid.mlir.
func.func @attr_kind_enum_not_string(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.gelu' op attribute 'approximate' must be one of 'none', 'tanh', got 1 : i64}}
  %0 = "versa.gelu"(%x) {approximate = 1 : i64} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
