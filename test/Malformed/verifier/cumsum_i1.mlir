// Verifier rule, from invalid-indexing.mlir.
func.func @cumsum_i1(%x: tensor<3x4xi1>) -> tensor<3x4xi1> {
  // expected-error @+1 {{'versa.cumsum' op expects a numeric (float or integer) element type, got i1}}
  %0 = "versa.cumsum"(%x) {axis = 0 : i64} : (tensor<3x4xi1>) -> tensor<3x4xi1>
  return %0 : tensor<3x4xi1>
}
