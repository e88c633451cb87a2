// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261131 (program 8674, generated):
// mismatch in O0: 3 of 27 elements off by 7.2e-5: the f32 mean of a constant row, amplified by 1/sqrt(eps).
func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<f32>, %arg2: tensor<3x3x3xf32>, %arg3: tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<2x4xf32>) {
  %0 = "versa.broadcast_to"(%arg1) : (tensor<f32>) -> tensor<3x3x3xf32>
  %1 = "versa.layer_norm"(%0, %arg2, %arg3) {axis = -3 : i64, epsilon = 1.066559052e-05 : f32} : (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) -> tensor<3x3x3xf32>
  return %1, %arg0 : tensor<3x3x3xf32>, tensor<2x4xf32>
}
