// RUN: versa-fuzz --replay %s
// The conv (depthwise) took the mean over no axes, which adds into its own zero init, as its
// epilogue: the init became the conv's accumulator, so the result was doubled, and grew with
// every call. Fixed in codegen/epilogue.py (epilogue_consumer).
// Found by versa-fuzz --seed 20261126 (program 5940, generated):
// mismatch in O2: result0: 108 of 144 elements do not match the reference within rtol 3.45e-05, atol 3.45e-06 (first at [0, 1, 0, 0]: got 0.048769280314445496, want 0.024384643882513046; max abs error 2.15)
func.func @main(%arg0: tensor<2x2x6x3xf32>, %arg1: tensor<2x3x1x3xf32>) -> tensor<2x1x1x3xf32> {
  %0 = "versa.conv2d"(%arg0, %arg1) {strides = array<i64: 1, 2>, dilations = array<i64: 1, 2>, groups = 3 : i64, layout = "NHWC"} : (tensor<2x2x6x3xf32>, tensor<2x3x1x3xf32>) -> tensor<2x1x1x3xf32>
  %1 = "versa.reduce_mean"(%0) {axes = array<i64>} : (tensor<2x1x1x3xf32>) -> tensor<2x1x1x3xf32>
  return %1 : tensor<2x1x1x3xf32>
}
