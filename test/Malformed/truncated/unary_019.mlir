// grow.py truncated of @unary: cut after byte 166
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "versa.abs"(%0) : (tensor<2x3xf32>) ->