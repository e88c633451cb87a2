// C hex float syntax
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.clamp"(%a) {min = 0x1.0p3 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
