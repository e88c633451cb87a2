// Verifier rule, from invalid.mlir.
func.func @batch_norm_param_shape(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{'versa.batch_norm' op variance shape [4] must be [3] (the channel dim of NCHW)}}
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %v) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
