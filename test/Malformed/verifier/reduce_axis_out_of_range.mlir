// Verifier rule, from invalid.mlir.
func.func @reduce_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_sum' op reduction axis 2 is out of range for rank 2}}
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 2>} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
