// grow.py mutated of @matmul: duplicate '-' on line 2 -> '- -'
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) - -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
