// grow.py mutated of @conv2d_all_attrs: replace 'groups' on line 2 -> '2'
func.func @conv2d_all_attrs(%x: tensor<2x4x9x9xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x8x4x7xf32> {
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 1, 2>, dilations = array<i64: 2, 2>, 2 = 2 : i64, layout = "NCHW"} : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x4x7xf32>
  return %0 : tensor<2x8x4x7xf32>
}
