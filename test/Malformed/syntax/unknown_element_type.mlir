// element type 'foo'
func.func @f(%a: tensor<4xfoo>) -> tensor<4xfoo> {
  %0 = "versa.relu"(%a) : (tensor<4xfoo>) -> tensor<4xfoo>
  return %0 : tensor<4xfoo>
}
