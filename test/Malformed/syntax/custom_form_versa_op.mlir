// versa ops parse in the generic form only
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = versa.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
