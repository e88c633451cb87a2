func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// í €
