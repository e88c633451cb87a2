// Verifier rule, from invalid.mlir.
func.func @broadcast_result_shape(%a: tensor<4x1xf32>, %b: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'versa.mul' op result shape [4, 1] does not match the expected shape [4, 8]}}
  %0 = "versa.mul"(%a, %b) : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
