// Verifier rule, from invalid-indexing.mlir.
func.func @iota_axis() -> tensor<4x2xi64> {
  // expected-error @+1 {{'versa.iota' op axis -3 is out of range for rank 2}}
  %0 = "versa.iota"() {axis = -3 : i64} : () -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}
