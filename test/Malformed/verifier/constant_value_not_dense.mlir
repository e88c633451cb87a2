// Verifier rule, from invalid.mlir.
func.func @constant_value_not_dense() -> tensor<4xf32> {
  // expected-error @+1 {{'versa.constant' op attribute 'value' must be dense elements}}
  %0 = "versa.constant"() {value = 1.0 : f32} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
