// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261128 (program 15738, generated):
// mismatch in O0: result0: 1 of 3 elements do not match the reference within rtol 0.0139, atol 0.00693 (first at [1]: got 0.0849609375, want 0.07513427734375; max abs error 0.00983)
func.func @main(%arg0: tensor<3xf16>, %arg1: tensor<f16>, %arg2: tensor<3xf16>, %arg3: tensor<3xf16>) -> tensor<3xf16> {
  %0 = "versa.min"(%arg0, %arg1) : (tensor<3xf16>, tensor<f16>) -> tensor<3xf16>
  %1 = "versa.layer_norm"(%0, %arg2, %arg3) {axis = -1 : i64, epsilon = 1.464955222e-04 : f32} : (tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  return %1 : tensor<3xf16>
}
