// Verifier rule, from invalid.mlir.
func.func @reduce_negative_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.reduce_max' op reduction axis -3 is out of range for rank 2}}
  %0 = "versa.reduce_max"(%x) {axes = array<i64: -3>} : (tensor<2x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
