// Verifier rule, from invalid-indexing.mlir.
func.func @compare_result_not_i1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.compare' op result element type must be i1, got f32}}
  %0 = "versa.compare"(%a, %a) {predicate = "gt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
