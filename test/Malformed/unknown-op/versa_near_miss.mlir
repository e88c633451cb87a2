// no op 'versa.rellu'
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.rellu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
