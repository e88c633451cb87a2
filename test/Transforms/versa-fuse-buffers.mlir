// A fused group's intermediates get no buffer: after bufferization the group's ops read the
// inputs and write the result buffer only. Without versa-fuse the same programs allocate.
// RUN: versa-opt %s --split-input-file --pass-pipeline="builtin.module(versa-fuse,convert-versa-to-linalg,canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-results-to-out-params{hoist-static-allocs modify-public-functions})" | FileCheck %s --check-prefix=FUSED
// RUN: versa-opt %s --split-input-file --pass-pipeline="builtin.module(convert-versa-to-linalg,canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-results-to-out-params{hoist-static-allocs modify-public-functions})" | FileCheck %s --check-prefix=UNFUSED

// relu(x * a + b) * sigmoid(x): one loop nest writing the result.
// FUSED-LABEL: func.func @elementwise_chain
//  FUSED-SAME:   %[[OUT:[^:]+]]: memref<64x96xf32>)
//   FUSED-NOT:   memref.alloc
//       FUSED:   linalg.generic
//  FUSED-SAME:     outs(%[[OUT]] : memref<64x96xf32>)
//   FUSED-NOT:   linalg.generic
// UNFUSED-LABEL: func.func @elementwise_chain
//       UNFUSED:   memref.alloc
func.func @elementwise_chain(%x: tensor<64x96xf32>, %a: tensor<96xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %0 = "versa.mul"(%x, %a) : (tensor<64x96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %1 = "versa.add"(%0, %b) : (tensor<64x96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %2 = "versa.relu"(%1) : (tensor<64x96xf32>) -> tensor<64x96xf32>
  %3 = "versa.sigmoid"(%x) : (tensor<64x96xf32>) -> tensor<64x96xf32>
  %4 = "versa.mul"(%2, %3) : (tensor<64x96xf32>, tensor<64x96xf32>) -> tensor<64x96xf32>
  return %4 : tensor<64x96xf32>
}

// -----

// matmul + bias + relu + residual: the matmul accumulates into the result buffer and the
// epilogue rewrites it in place, in one pass instead of three.
// FUSED-LABEL: func.func @epilogue
//  FUSED-SAME:   %[[OUT:[^:]+]]: memref<64x96xf32>)
//   FUSED-NOT:   memref.alloc
//       FUSED:   linalg.matmul {{.*}} outs(%[[OUT]] : memref<64x96xf32>)
//       FUSED:   linalg.generic
//  FUSED-SAME:     ins(%{{[^)]*}} : memref<96xf32>, memref<64x96xf32>)
//  FUSED-SAME:     outs(%[[OUT]] : memref<64x96xf32>)
//   FUSED-NOT:   linalg.generic
// UNFUSED-LABEL: func.func @epilogue
// UNFUSED-COUNT-3:   linalg.generic
func.func @epilogue(%a: tensor<64x128xf32>, %w: tensor<128x96xf32>, %bias: tensor<96xf32>, %r: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  %1 = "versa.add"(%0, %bias) : (tensor<64x96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %2 = "versa.relu"(%1) : (tensor<64x96xf32>) -> tensor<64x96xf32>
  %3 = "versa.add"(%2, %r) : (tensor<64x96xf32>, tensor<64x96xf32>) -> tensor<64x96xf32>
  return %3 : tensor<64x96xf32>
}

// -----

// mean(x * x) over rows: the square is computed in the reduction's body, the division in place.
// FUSED-LABEL: func.func @reduction
//   FUSED-NOT:   memref.alloc
//       FUSED:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       FUSED:     arith.mulf
//       FUSED:     arith.addf
//       FUSED:   linalg.generic
//       FUSED:     arith.divf
// UNFUSED-LABEL: func.func @reduction
//       UNFUSED:   memref.alloc() {{.*}} : memref<64x128xf32>
func.func @reduction(%x: tensor<64x128xf32>) -> tensor<64xf32> {
  %0 = "versa.mul"(%x, %x) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %1 = "versa.reduce_mean"(%0) {axes = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}

// -----

// relu(batch_norm(x + r)): one loop nest; the per-channel parameters are read through a view.
// FUSED-LABEL: func.func @batch_norm
//   FUSED-NOT:   memref.alloc
//       FUSED:   linalg.generic
//   FUSED-NOT:   linalg.generic
// UNFUSED-LABEL: func.func @batch_norm
// UNFUSED-COUNT-3:   linalg.generic
func.func @batch_norm(%x: tensor<2x4x8x8xf32>, %r: tensor<2x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %0 = "versa.add"(%x, %r) : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %1 = "versa.batch_norm"(%0, %s, %b, %m, %v) {epsilon = 1.0e-05 : f32} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %2 = "versa.relu"(%1) : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %2 : tensor<2x4x8x8xf32>
}
