// a call to a function that does not exist
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @missing(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
