// Verifier rule, from invalid-indexing.mlir.
func.func @or_mixed(%a: tensor<4xi1>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.or' op operand element type i32 differs from the result's i1}}
  %0 = "versa.or"(%a, %b) : (tensor<4xi1>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
