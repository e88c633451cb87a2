// non-integer in array<i64>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.transpose"(%a) {perm = array<i64: 0, x>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
