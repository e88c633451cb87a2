// integer does not fit i64
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.softmax"(%a) {axis = 99999999999999999999999 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
