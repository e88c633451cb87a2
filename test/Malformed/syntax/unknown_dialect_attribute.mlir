// the versa dialect has no attributes
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) {x = #versa.attr} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
