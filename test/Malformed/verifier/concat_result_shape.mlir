// Verifier rule, from invalid.mlir.
func.func @concat_result_shape(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'versa.concat' op result shape [2, 3] does not match the expected shape [4, 3]}}
  %0 = "versa.concat"(%a, %a) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
