// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261130 (program 2270, mutant of corpus program 111):
// compile-error in fused: <program>: error: pass 'versa-codegen' failed: ValueError: Failed to apply named transform sequence.
// (neg updates the 65-group conv's result in place: the window fused the conv through neg's init.)
func.func @main(%arg0: tensor<1x130x1x1xf32>, %arg1: tensor<65x2x1x1xf32>) -> tensor<1x65x1x1xf32> {
  %0 = "versa.conv2d"(%arg0, %arg1) {groups = 65 : i64} : (tensor<1x130x1x1xf32>, tensor<65x2x1x1xf32>) -> tensor<1x65x1x1xf32>
  %1 = "versa.neg"(%0) : (tensor<1x65x1x1xf32>) -> tensor<1x65x1x1xf32>
  %2 = "versa.softmax"(%1) {axis = 3 : i64} : (tensor<1x65x1x1xf32>) -> tensor<1x65x1x1xf32>
  return %2 : tensor<1x65x1x1xf32>
}
