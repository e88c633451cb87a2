// grow.py mutated of @matmul: vocabulary ',' on line 1 -> 'true'
func.func @matmul(%a: tensor<4x8xf32>true %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
