// Verifier rule, from invalid.mlir.
func.func @operand_not_tensor(%a: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+1 {{'versa.relu' op expects ranked tensors, got vector<4xf32>}}
  %0 = "versa.relu"(%a) : (vector<4xf32>) -> vector<4xf32>
  return %0 : vector<4xf32>
}
