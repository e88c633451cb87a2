// Verifier rule, from invalid-indexing.mlir.
func.func @iota_no_axis() -> tensor<4xi64> {
  // expected-error @+1 {{'versa.iota' op requires attribute 'axis'}}
  %0 = "versa.iota"() : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
