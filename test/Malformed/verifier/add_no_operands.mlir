// Verifier rule: operand and result counts.
func.func @add_no_operands() {
  // expected-error @+1 {{expects exactly 2 operands, but got 0}}
  "versa.add"() : () -> ()
  return
}
