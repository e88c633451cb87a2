// two names for one result
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0, %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
