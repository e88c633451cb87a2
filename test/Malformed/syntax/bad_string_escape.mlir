// unknown escape in a string
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) {x = "\q"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
