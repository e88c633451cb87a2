// grow.py mutated of @grouped_conv2d_nhwc: vocabulary 'tensor' on line 2 -> '3'
func.func @grouped_conv2d_nhwc(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<1x2x2x6xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> 3<1x2x2x6xf32>
  return %0 : tensor<1x2x2x6xf32>
}
