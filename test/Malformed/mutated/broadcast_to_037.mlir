// grow.py mutated of @broadcast_to: delete '1x4xf32' on line 1 -> ''
func.func @broadcast_to(%x: tensor<>, %v: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>) {
  %0 = "versa.broadcast_to"(%x) : (tensor<1x4xf32>) -> tensor<3x4xf32>
  %1 = "versa.broadcast_to"(%v) : (tensor<4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<2x3x4xf32>
}
