// grow.py truncated of @reduce: cut after byte 160
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64