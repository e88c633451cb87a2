// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261131 (program 15279, generated):
// compile-error in O2, O3, fused: pass 'versa-codegen' failed: Attempted to vectorize, but failed.
// (versa-collapse-epilogues kept the 1x1x1x1 scale at rank 4 in a rank-3 epilogue.)
func.func @main(%arg0: tensor<2x3x1x2xf32>, %arg1: tensor<2x3x2x1xf32>, %arg2: tensor<1x1x1x1xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x3x1x2xf32>, tensor<2x3x1x2xf32>) {
  %0 = "versa.matmul"(%arg0, %arg1) : (tensor<2x3x1x2xf32>, tensor<2x3x2x1xf32>) -> tensor<2x3x1x1xf32>
  %1 = "versa.mul"(%0, %arg2) : (tensor<2x3x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<2x3x1x1xf32>
  return %1, %arg0, %arg0 : tensor<2x3x1x1xf32>, tensor<2x3x1x2xf32>, tensor<2x3x1x2xf32>
}
