// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261128 (program 3936, generated):
// compile-error in O2: <program>: error: pass 'versa-codegen' failed: ValueError: Failed to apply named transform sequence.
func.func @main(%arg0: tensor<2x1x1x1xi8>, %arg1: tensor<1x1xi64>) -> tensor<2x1x1xi8> {
  %0 = "versa.gather"(%arg0, %arg1) {axis = -1 : i64} : (tensor<2x1x1x1xi8>, tensor<1x1xi64>) -> tensor<2x1x1x1x1xi8>
  %1 = "versa.reduce_sum"(%0) {axes = array<i64: 2, 4>} : (tensor<2x1x1x1x1xi8>) -> tensor<2x1x1xi8>
  return %1 : tensor<2x1x1xi8>
}
