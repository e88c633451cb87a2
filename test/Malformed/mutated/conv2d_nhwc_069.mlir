// grow.py mutated of @conv2d_nhwc: replace '>' on line 2 -> ':'
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = "versa.conv2d"(%x, %w) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32:, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}
