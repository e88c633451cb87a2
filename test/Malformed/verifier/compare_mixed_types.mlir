// Verifier rule, from invalid-indexing.mlir.
func.func @compare_mixed_types(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op operand element types differ: f32 vs i32}}
  %0 = "versa.compare"(%a, %b) {predicate = "eq"} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
