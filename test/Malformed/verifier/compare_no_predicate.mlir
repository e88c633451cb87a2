// Verifier rule, from invalid-indexing.mlir.
func.func @compare_no_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'versa.compare' op requires attribute 'predicate'}}
  %0 = "versa.compare"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
