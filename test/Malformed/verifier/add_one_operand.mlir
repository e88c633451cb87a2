// Verifier rule: operand count (checked before the shape rules index the operands).
func.func @add_one_operand(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects exactly 2 operands, but got 1}}
  %0 = "versa.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
