// no op 'versa'
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
