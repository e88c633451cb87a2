// Verifier rule, from invalid-indexing.mlir.
func.func @select_condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.select' op condition element type must be i1, got f32}}
  %0 = "versa.select"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
