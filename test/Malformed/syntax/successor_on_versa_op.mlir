// a successor on a non-terminator
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a)[^bb1] : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
