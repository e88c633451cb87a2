// Verifier rule, from invalid.mlir.
func.func @layer_norm_epsilon_positive(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op attribute 'epsilon' must be positive, got 0.0}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = 1 : i64, epsilon = 0.0 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
