// Verifier rule, from invalid-indexing.mlir.
func.func @and_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.and' op expects i1 or an integer element type, got f32}}
  %0 = "versa.and"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
