// grow.py truncated of @matmul: cut after byte 105
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.matmul"(