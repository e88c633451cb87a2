// Verifier rule, from invalid-indexing.mlir.
func.func @compare_bad_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op attribute 'predicate' must be one of 'eq', 'ne', 'lt', 'le', 'gt', 'ge', got "lte"}}
  %0 = "versa.compare"(%a, %a) {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
