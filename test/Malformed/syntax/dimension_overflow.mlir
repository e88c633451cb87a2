// dimension that does not fit int64
func.func @f(%a: tensor<99999999999999999999999xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
