// attribute without a value
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.softmax"(%a) {axis = } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
