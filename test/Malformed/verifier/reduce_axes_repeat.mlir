// Verifier rule, from invalid.mlir.
func.func @reduce_axes_repeat(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'versa.reduce_mean' op reduction axes [1, -1] repeat a dim}}
  %0 = "versa.reduce_mean"(%x) {axes = array<i64: 1, -1>} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
