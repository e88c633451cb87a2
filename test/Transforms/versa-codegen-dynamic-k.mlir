// RUN: versa-opt %s --pass-pipeline='builtin.module(versa-codegen{threads=1 target=x86-64-v3})' | FileCheck %s

// A versa-static-tiles tile of attention's `probs @ V`: static rows and columns, the sequence
// (K) dynamic. The matmul strategy runs K as its k register loop, one step at a time, in
// cache blocks of static size, so each register tile's accumulators are read once per block,
// stay in registers across it and are written once (not a fill, a contraction and an add per
// piece of K).
// CHECK-LABEL: func.func @probs_v
//       CHECK:   %[[K:.+]] = tensor.dim %{{.+}}, %c2 : tensor<4x64x?xf32>
//       CHECK:   scf.for
//       CHECK:     scf.for %[[K1:.+]] = %c0 to %[[K]] step %c512
//       CHECK:       %[[BLOCK:.+]] = affine.min #{{.+}}(%[[K1]])[%[[K]]]
//       CHECK:           %[[READ:.+]] = vector.transfer_read
//       CHECK:           %[[INIT:.+]] = vector.shape_cast %[[READ]] : vector<4x16xf32> to vector<1x4x16xf32>
//       CHECK:           %[[ACC:.+]] = scf.for %{{.+}} = %c0 to %[[BLOCK]] step %c1 iter_args(%{{.+}} = %[[INIT]]) -> (vector<1x4x16xf32>)
//   CHECK-NOT:             vector.transfer_write
//       CHECK:             vector.fma
//       CHECK:           %[[OUT:.+]] = vector.shape_cast %[[ACC]]
//       CHECK:           vector.transfer_write %[[OUT]]
//   CHECK-NOT:   linalg.batch_matmul
//   CHECK-NOT:   arith.addf
func.func @probs_v(%p: tensor<4x64x?xf32>, %v: tensor<4x?x16xf32>) -> tensor<4x64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x16xf32>) -> tensor<4x64x16xf32>
  %0 = linalg.batch_matmul ins(%p, %v : tensor<4x64x?xf32>, tensor<4x?x16xf32>) outs(%f : tensor<4x64x16xf32>) -> tensor<4x64x16xf32>
  return %0 : tensor<4x64x16xf32>
}
