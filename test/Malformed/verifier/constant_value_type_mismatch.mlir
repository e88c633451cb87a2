// Verifier rule, from invalid.mlir.
func.func @constant_value_type_mismatch() -> tensor<4xf32> {
  // expected-error @+1 {{'versa.constant' op value type tensor<2xf32> differs from the result type tensor<4xf32>}}
  %0 = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
