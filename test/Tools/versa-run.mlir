// versa-run: JIT-compile, run on seeded random inputs, compare with the NumPy reference.
// RUN: versa-run %s --random --check | FileCheck %s
// RUN: versa-run %s --random --check --fuse --repeat 3 | FileCheck %s --check-prefixes=CHECK,TIME

// CHECK: result0: float32[2, 3]
// CHECK: check result0: OK
// TIME: median time over 3 runs: {{[0-9.]+}} ms

// Peak bytes: 24 + 12 of inputs, 24 of results, and the arena of intermediates (64-byte
// slots, shared where lifetimes do not overlap): at -O0 softmax's decomposition keeps three
// 2x3 buffers live at once; at -O3 softmax is a row kernel that evaluates its producer (exp)
// where it reads it, so only add's result is a buffer; fused, add+exp is one group that the
// kernel evaluates: no intermediate at all.
// RUN: versa-run %s --random --memory -O0 | FileCheck %s --check-prefix=MEM0
// RUN: versa-run %s --random --memory | FileCheck %s --check-prefix=MEM3
// RUN: versa-run %s --random --memory --fuse | FileCheck %s --check-prefix=FUSED
// MEM0: memory: peak 252 bytes (inputs 36, results 24, intermediates 192 in the arena)
// MEM3: memory: peak 124 bytes (inputs 36, results 24, intermediates 64 in the arena)
// FUSED: memory: peak 60 bytes (inputs 36, results 24, intermediates 0 in the arena)
func.func @softmax_of_sum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "versa.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.softmax"(%1) {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
