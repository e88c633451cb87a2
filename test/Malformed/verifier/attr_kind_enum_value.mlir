// Verifier rule, from invalid.mlir.
func.func @attr_kind_enum_value(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.gelu' op attribute 'approximate' must be one of 'none', 'tanh', got "erf"}}
  %0 = "versa.gelu"(%x) {approximate = "erf"} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
