// grow.py mutated of @binary_broadcast: delete ')' on line 2 -> ''
func.func @binary_broadcast(%a: tensor<4x1xf32>, %b: tensor<2x1x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x1xf32>, tensor<2x1x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
