// grow.py mutated of @conv2d_depthwise: delete 'tensor' on line 2 -> ''
func.func @conv2d_depthwise(%x: tensor<1x8x5x5xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 8 : i64} : (<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}
