// grow.py mutated of @conv_transpose2d: delete 'i64' on line 3 -> ''
func.func @conv_transpose2d(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x6x10x10xf32>) {
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  %1 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, groups = 2 : } : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x10x10xf32>
  return %0, %1 : tensor<1x3x7x7xf32>, tensor<1x6x10x10xf32>
}
