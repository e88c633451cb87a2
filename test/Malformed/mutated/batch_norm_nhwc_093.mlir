// grow.py mutated of @batch_norm_nhwc: swap '>' with the next token
func.func @batch_norm_nhwc(%x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x4x4x3xf32> {
  %0 = "versa.batch_norm"(%x, %s, %b, %m, %v) {epsilon = 1.0e-03 : f32, layout = "NHWC"} : (tensor<2x4x4x3xf32,> tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32>
  return %0 : tensor<2x4x4x3xf32>
}
