// grow.py mutated of @pad: delete ',' on line 1 -> ''
func.func @pad(%x: tensor<2x3xf32>) -> (tensor<3x6xf32> tensor<3x3xf32>) {
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  %1 = "versa.pad"(%x) {low = array<i64: 0, 0>, high = array<i64: 1, 0>, value = -1.0 : f32} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0, %1 : tensor<3x6xf32>, tensor<3x3xf32>
}
