// Verifier rule, from invalid.mlir.
func.func @unranked_operand(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'versa.relu' op expects ranked tensors, got tensor<*xf32>}}
  %0 = "versa.relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
