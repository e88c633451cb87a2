// RUN: versa-fuzz --replay %s
// Found by versa-fuzz scanning generated programs (generate(1990)), reduced by versa-fuzz.
// compile-error in O1, O2, O3 and fused: pass 'versa-row-kernels' failed: ZeroDivisionError:
// float division by zero (passes/row_kernels.py: `1.0 / length` with rows of length 0).
// Fixed: versa-row-kernels (row_axes) now leaves a softmax or layer_norm on a tensor without
// elements to convert-versa-to-linalg, whose loops run no iteration; the result is empty
// anyway (test/Transforms/versa-row-kernels.mlir, @negative_empty).
func.func @main(%arg0: tensor<0xf32>, %arg1: tensor<0xf32>, %arg2: tensor<0xf32>) -> tensor<0xf32> {
  %0 = "versa.layer_norm"(%arg0, %arg1, %arg2) {axis = -1 : i64, epsilon = 3.639467909e-05 : f32} : (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}
