// grow.py truncated of @transpose: cut after byte 190
func.func @transpose(%x: tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32> {
  %0 = "versa.transpose"(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
  return %0