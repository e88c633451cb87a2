// Verifier rule, from invalid-indexing.mlir.
func.func @iota_i1() -> tensor<4xi1> {
  // expected-error @+1 {{'versa.iota' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.iota"() {axis = 0 : i64} : () -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
