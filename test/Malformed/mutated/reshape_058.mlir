// grow.py mutated of @reshape: vocabulary ':' on line 4 -> '('
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "versa.reshape"(%0) : (tensor<6x4xf32>) -> tensor<24xf32>
  return %1 ( tensor<24xf32>
}
