// versa-run: JIT-compile, run on seeded random inputs, compare with the NumPy reference.
// RUN: versa-run %s --random --check | FileCheck %s
// RUN: versa-run %s --random --check --fuse --repeat 3 | FileCheck %s --check-prefixes=CHECK,TIME

// CHECK: result0: float32[2, 3]
// CHECK: check result0: OK
// TIME: median time over 3 runs: {{[0-9.]+}} ms
func.func @softmax_of_sum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "versa.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.softmax"(%1) {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
