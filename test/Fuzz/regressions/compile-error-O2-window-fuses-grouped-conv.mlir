// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261129 (program 12377, generated):
// compile-error in O2: <program>: error: pass 'versa-codegen' failed: ValueError: Failed to apply named transform sequence.
// (65 groups stay one strided generic; the softmax max-reduce over a size-1 axis fused it into its tiles.)
func.func @main(%arg0: tensor<1x130x1x1xf32>, %arg1: tensor<65x2x1x1xf32>) -> tensor<1x65x1x1xf32> {
  %0 = "versa.conv2d"(%arg0, %arg1) {groups = 65 : i64} : (tensor<1x130x1x1xf32>, tensor<65x2x1x1xf32>) -> tensor<1x65x1x1xf32>
  %1 = "versa.softmax"(%0) {axis = 3 : i64} : (tensor<1x65x1x1xf32>) -> tensor<1x65x1x1xf32>
  return %1 : tensor<1x65x1x1xf32>
}
