// Verifier rule, from invalid.mlir.
func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op axis -3 is out of range for rank 2}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = -3 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
