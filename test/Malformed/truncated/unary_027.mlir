// grow.py truncated of @unary: cut after byte 313
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "versa.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "versa.log"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 =