// grow.py mutated of @softmax: duplicate '<' on line 4 -> '< <'
func.func @softmax(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %1 = "versa.softmax"(%0) {axis = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return %1 : tensor< <2x10xf32>
}
