// grow.py mutated of @clamp: swap '<' with the next token
func.func @clamp(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.clamp"(%x) {min = 0.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.clamp"(%0) {min = -1.5 : f32, max = 6.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = "versa.clamp"(%1) {max = 2.5 : f32} : (tensor4x16xf32<>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
