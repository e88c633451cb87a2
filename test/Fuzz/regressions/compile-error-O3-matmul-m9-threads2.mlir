// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 2026 (program 351, generated); the reducer gave
// tensor<3x1x3x4xf32> @ tensor<4x1xf32> (a batch matmul flattened to M = 9), reduced by hand to 2-D.
// compile-error in O3 and fused: pass 'versa-codegen' failed: Failed to apply named transform
// sequence: "Attempted to vectorize, but failed".
// Fixed: lower-to-llvm{opt-level=3 threads=2} could not compile an f32 matmul with M = 9 or
// 11: the thread split (8 + 1 rows) left a chunk shorter than the 8-row register tile, which
// vectorization refused. The matmul strategy now splits only into chunks of whole tiles.
func.func @main(%arg0: tensor<9x4xf32>, %arg1: tensor<4x2xf32>) -> tensor<9x2xf32> {
  %0 = "versa.matmul"(%arg0, %arg1) : (tensor<9x4xf32>, tensor<4x2xf32>) -> tensor<9x2xf32>
  return %0 : tensor<9x2xf32>
}
