// grow.py mutated of @binary_broadcast: duplicate 'return' on line 3 -> 'return return'
func.func @binary_broadcast(%a: tensor<4x1xf32>, %b: tensor<2x1x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x1xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  return return %0 : tensor<2x4x8xf32>
}
