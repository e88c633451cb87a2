// Verifier rule, from invalid-indexing.mlir.
func.func @compare_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xi1> {
  // expected-error @+1 {{'versa.compare' op operand shapes [4, 3] and [4] are not broadcast-compatible (dim 1: 3 vs 4)}}
  %0 = "versa.compare"(%a, %b) {predicate = "ge"} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xi1>
  return %0 : tensor<4x3xi1>
}
