// '%0 =' with nothing after it
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 =
  return %a : tensor<4xf32>
}
