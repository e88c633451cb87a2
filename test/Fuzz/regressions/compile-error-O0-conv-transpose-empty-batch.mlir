// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261132 (program 10037, generated; fixed: an empty batch skips the spread):
// compile-error in O0: <program>:2:8: error: offset 0 is out-of-bounds: 0 >= 0
func.func @main(%arg0: tensor<0x1x2x5xf32>, %arg1: tensor<1x1x1x1xf32>) -> tensor<0x1x1x3xf32> {
  %0 = "versa.conv_transpose2d"(%arg0, %arg1) {padding = array<i64: 0, 0, 1, 2>} : (tensor<0x1x2x5xf32>, tensor<1x1x1x1xf32>) -> tensor<0x1x1x3xf32>
  return %0 : tensor<0x1x1x3xf32>
}
