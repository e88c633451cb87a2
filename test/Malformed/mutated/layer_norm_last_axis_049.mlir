// grow.py mutated of @layer_norm_last_axis: duplicate '(' on line 2 -> '( ('
func.func @layer_norm_last_axis(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-03 : f32} : ( (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
