// grow.py truncated of @conv2d_nhwc: cut after byte 45
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32