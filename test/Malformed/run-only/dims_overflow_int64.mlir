// an element count beyond int64
func.func @f(%a: tensor<9223372036854775807x4xf32>) -> tensor<9223372036854775807x4xf32> {
  %0 = "versa.relu"(%a) : (tensor<9223372036854775807x4xf32>) -> tensor<9223372036854775807x4xf32>
  return %0 : tensor<9223372036854775807x4xf32>
}
