// Verifier rule, from invalid.mlir.
// As NumPy: a 0-d tensor has no axis 0.
func.func @reduce_sum_axis_of_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'versa.reduce_sum' op reduction axis 0 is out of range for rank 0}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
