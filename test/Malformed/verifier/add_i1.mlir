// Verifier rule, from invalid-indexing.mlir.
func.func @add_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.add' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.add"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
