// grow.py truncated of @conv2d_defaults: cut after byte 99
func.func @conv2d_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>