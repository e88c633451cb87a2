// Verifier rule: concat needs an operand.
func.func @concat_no_operands() -> tensor<4xf32> {
  // expected-error @+1 {{expects at least 1 operands, but got 0}}
  %0 = "versa.concat"() {axis = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
