// Verifier rule, from invalid-indexing.mlir.
func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.gather' op indices element type must be i32 or i64, got f32}}
  %0 = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
