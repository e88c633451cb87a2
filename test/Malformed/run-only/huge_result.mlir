// a 372 GiB result
func.func @f(%a: tensor<4xf32>) -> tensor<25000000000x4xf32> {
  %0 = "versa.broadcast_to"(%a) : (tensor<4xf32>) -> tensor<25000000000x4xf32>
  return %0 : tensor<25000000000x4xf32>
}
