// grow.py truncated of @conv2d_nhwc: cut after byte 137
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = "versa.conv2d"(%x, %w) {layout