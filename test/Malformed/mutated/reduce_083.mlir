// grow.py mutated of @reduce: duplicate '=' on line 3 -> '= ='
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = "versa.reduce_max"(%x) {axes = = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %2 = "versa.reduce_mean"(%x) {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %3 = "versa.reduce_sum"(%x) {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>
}
