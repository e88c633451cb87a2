// grow.py mutated of @conv2d_defaults: duplicate '1x3x8x8xf32' on line 2 -> '1x3x8x8xf32 1x3x8x8xf32'
func.func @conv2d_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32 1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
