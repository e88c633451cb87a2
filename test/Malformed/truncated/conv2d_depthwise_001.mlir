// grow.py truncated of @conv2d_depthwise: cut after byte 39
func.func @conv2d_depthwise(%x: tensor<