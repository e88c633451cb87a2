// grow.py mutated of @batch_norm: swap '2x3x4x4xf32' with the next token
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<>2x3x4x4xf32 {
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
