// grow.py mutated of @matmul: vocabulary '4x16xf32' on line 1 -> '"versa.yield"'
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<"versa.yield"> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
