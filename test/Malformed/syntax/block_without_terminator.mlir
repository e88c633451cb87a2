// the last block has no terminator
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
}
