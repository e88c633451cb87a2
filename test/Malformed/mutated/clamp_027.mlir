// grow.py mutated of @clamp: delete '"versa.clamp"' on line 2 -> ''
func.func @clamp(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = (%x) {min = 0.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.clamp"(%0) {min = -1.5 : f32, max = 6.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = "versa.clamp"(%1) {max = 2.5 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
