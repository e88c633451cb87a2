// Verifier rule, from invalid.mlir.
func.func @batch_norm_rank(%x: tensor<2x3x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op input must have rank 4}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
