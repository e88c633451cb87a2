// Verifier rule, from invalid-indexing.mlir.
func.func @cumsum_result_type(%x: tensor<3x4xi32>) -> tensor<3x4xi64> {
  // expected-error @+1 {{'versa.cumsum' op operand element type i32 differs from the result's i64}}
  %0 = "versa.cumsum"(%x) {axis = 0 : i64} : (tensor<3x4xi32>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}
