// Verifier rule, from invalid.mlir.
func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.add' op operand element type f16 differs from the result's f32}}
  %0 = "versa.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
