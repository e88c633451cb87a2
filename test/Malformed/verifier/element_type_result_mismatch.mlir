// Verifier rule, from invalid.mlir.
func.func @element_type_result_mismatch(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'versa.relu' op operand element type f32 differs from the result's f16}}
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
