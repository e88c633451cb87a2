// Verifier rule, from invalid-indexing.mlir.
func.func @gather_element_type(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf16> {
  // expected-error @+1 {{'versa.gather' op input element type f32 differs from the result's f16}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}
