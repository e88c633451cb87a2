// Verifier rule, from invalid.mlir.
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'versa.concat' op operands must have the same rank}}
  %0 = "versa.concat"(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
