// Verifier rule, from invalid.mlir.
func.func @result_shape_mismatch(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.relu' op result shape [4, 4] does not match the expected shape [4, 8]}}
  %0 = "versa.relu"(%a) : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
