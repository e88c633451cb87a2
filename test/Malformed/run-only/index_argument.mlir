// index elements
func.func @f(%a: tensor<4xindex>) -> tensor<4xindex> {
  return %a : tensor<4xindex>
}
