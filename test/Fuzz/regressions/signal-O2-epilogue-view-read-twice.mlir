// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261128 (program 11813, generated):
// signal in O2: the worker died with signal SIGSEGV:
func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<1x2x2xf32>) -> tensor<1x2x1xf32> {
  %0 = "versa.matmul"(%arg1, %arg0) : (tensor<1x2x2xf32>, tensor<2x1xf32>) -> tensor<1x2x1xf32>
  %1 = "versa.mul"(%0, %0) : (tensor<1x2x1xf32>, tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  return %1 : tensor<1x2x1xf32>
}
