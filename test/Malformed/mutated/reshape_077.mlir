// grow.py mutated of @reshape: vocabulary 'tensor' on line 1 -> 'i1'
func.func @reshape(%x: tensor<2x3x4xf32>) -> i1<24xf32> {
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "versa.reshape"(%0) : (tensor<6x4xf32>) -> tensor<24xf32>
  return %1 : tensor<24xf32>
}
