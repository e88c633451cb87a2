// grow.py mutated of @avg_pool2d: delete '%0' on line 2 -> ''
func.func @avg_pool2d(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32> {
   = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  %1 = "versa.avg_pool2d"(%0) {kernel = array<i64: 2, 4>, strides = array<i64: 2, 4>, layout = "NHWC"} : (tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32>
  return %1 : tensor<1x4x2x3xf32>
}
