// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261128 (program 4900, generated):
// compile-error in fused: <program>: error: pass 'versa-codegen' failed: RuntimeError: Exception raised in callback: Traceback (most recent call last):
func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1xf32> {
  %0 = "versa.min"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "versa.div"(%arg0, %0) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %2 = "versa.reduce_sum"(%1) {axes = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<1xf32>
  return %2 : tensor<1xf32>
}
