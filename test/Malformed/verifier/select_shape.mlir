// Verifier rule, from invalid-indexing.mlir.
func.func @select_shape(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'versa.select' op result shape [3] does not match the expected shape [2, 3]}}
  %0 = "versa.select"(%c, %a, %b) : (tensor<2x1xi1>, tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
