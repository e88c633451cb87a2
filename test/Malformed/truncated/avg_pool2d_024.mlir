// grow.py truncated of @avg_pool2d: cut after byte 191
func.func @avg_pool2d(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<