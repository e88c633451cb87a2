// Verifier rule, from invalid.mlir.
func.func @operand_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects exactly 1 operands, but got 2}}
  %0 = "versa.relu"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
