// Verifier rule, from invalid.mlir.
func.func @softmax_axis_of_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'versa.softmax' op axis 0 is out of range for rank 0}}
  %0 = "versa.softmax"(%x) {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
