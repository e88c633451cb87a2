// grow.py truncated of @matmul: cut after byte 140
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<