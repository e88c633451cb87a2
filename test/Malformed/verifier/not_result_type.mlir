// Verifier rule, from invalid-indexing.mlir.
func.func @not_result_type(%a: tensor<4xi1>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.not' op operand element type i1 differs from the result's i8}}
  %0 = "versa.not"(%a) : (tensor<4xi1>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
