// grow.py mutated of @conv2d_defaults: vocabulary '1x3x8x8xf32' on line 1 -> 'nan'
func.func @conv2d_defaults(%x: tensor<nan>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
