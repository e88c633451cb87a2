// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v4' | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v3' | FileCheck %s --check-prefix=V3

// Attention's scores, Q·Kᵀ per head (K = 64): K is one cache block, so each C row block is
// zeroed inside its cache loop, right before its register tiles accumulate into it (the fill
// fused into the m1 loop), not all of C first: a C larger than L2 would go to memory and come
// back. Threads take a head each; B (128 KB) is packed above the m1 loop.
// CHECK-LABEL: func.func @scores
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     tensor.empty() : tensor<16x16x1x4x32xf32>
//       CHECK:     scf.for %{{.+}} = %c0 to %c512 step %c256
//       CHECK:       scf.for
//       CHECK:         scf.for
//       CHECK:           vector.transfer_write %{{.+}}, %{{.+}} : vector<8x32xf32>, tensor<1x8x32xf32>
//       CHECK:       scf.for
//       CHECK:         scf.for
//       CHECK:           scf.for {{.*}} -> (vector<1x8x32xf32>)
//       CHECK:             vector.fma {{.*}} : vector<32xf32>
//   CHECK-NOT:   linalg.batch_matmul
// AVX2 (x86-64-v3: 8 lanes, 16 registers): 4x16 register tiles, the same blocks.
// V3-LABEL: func.func @scores
//   V3-NOT:   linalg.fill
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for %{{.+}} = %c0 to %c512 step %c256
//       V3:       scf.for
//       V3:         scf.for
//       V3:           vector.transfer_write %{{.+}}, %{{.+}} : vector<4x16xf32>, tensor<1x4x16xf32>
//       V3:       scf.for
//       V3:         scf.for
//       V3:           scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:             vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   linalg.batch_matmul
func.func @scores(%q: tensor<2x512x64xf32>, %kt: tensor<2x64x512xf32>) -> tensor<2x512x512xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x512x512xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  %0 = linalg.batch_matmul ins(%q, %kt : tensor<2x512x64xf32>, tensor<2x64x512xf32>) outs(%z : tensor<2x512x512xf32>) -> tensor<2x512x512xf32>
  return %0 : tensor<2x512x512xf32>
}

// -----

// P·V with K = 1024 in several cache blocks: a k1 loop comes back to each C block, so C is
// zeroed whole, before the blocks (the fill stays outside the cache loops).
// CHECK-LABEL: func.func @negative_values_in_k_blocks
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     vector.transfer_write %{{.+}} : vector<8x32xf32>, tensor<1x8x32xf32>
//       CHECK:     scf.for %{{.+}} = %c0 to %c1024 step %c256
// V3-LABEL: func.func @negative_values_in_k_blocks
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     vector.transfer_write %{{.+}} : vector<4x16xf32>, tensor<1x4x16xf32>
//       V3:     scf.for %{{.+}} = %c0 to %c1024 step %c512
func.func @negative_values_in_k_blocks(%p: tensor<2x1024x1024xf32>, %v: tensor<2x1024x64xf32>) -> tensor<2x1024x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1024x64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<2x1024x64xf32>) -> tensor<2x1024x64xf32>
  %0 = linalg.batch_matmul ins(%p, %v : tensor<2x1024x1024xf32>, tensor<2x1024x64xf32>) outs(%z : tensor<2x1024x64xf32>) -> tensor<2x1024x64xf32>
  return %0 : tensor<2x1024x64xf32>
}
