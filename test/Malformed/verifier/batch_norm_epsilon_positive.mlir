// Verifier rule, from invalid.mlir.
func.func @batch_norm_epsilon_positive(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op attribute 'epsilon' must be positive, got -1.0}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = -1.0 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
