// Verifier rule, from invalid-indexing.mlir.
func.func @iota_rank0() -> tensor<i64> {
  // expected-error @+1 {{'versa.iota' op result must have rank >= 1}}
  %0 = "versa.iota"() {axis = 0 : i64} : () -> tensor<i64>
  return %0 : tensor<i64>
}
