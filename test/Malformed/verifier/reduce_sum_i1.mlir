// Verifier rule, from invalid-indexing.mlir.
func.func @reduce_sum_i1(%a: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'versa.reduce_sum' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.reduce_sum"(%a) {axes = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}
