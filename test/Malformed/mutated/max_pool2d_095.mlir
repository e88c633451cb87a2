// grow.py mutated of @max_pool2d: swap '-' with the next token
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>) >- tensor<1x3x6x6xf32>
  %1 = "versa.max_pool2d"(%0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, layout = "NCHW"} : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
  return %1 : tensor<1x3x3x3xf32>
}
