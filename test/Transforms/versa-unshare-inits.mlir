// RUN: versa-opt %s --split-input-file --versa-unshare-inits | FileCheck %s

// Two convolutions whose zero accumulators cse merged get one fill (of its own empty) each.
// CHECK-LABEL: func.func @shared_fill
//       CHECK:   %[[E0:.+]] = tensor.empty() : tensor<1x8x6x6xf32>
//       CHECK:   %[[F0:.+]] = linalg.fill {{.*}}outs(%[[E0]] :
//       CHECK:   %[[E1:.+]] = tensor.empty() : tensor<1x8x6x6xf32>
//       CHECK:   %[[F1:.+]] = linalg.fill {{.*}}outs(%[[E1]] :
//   CHECK-NOT:   linalg.fill
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}}outs(%[[F1]] :
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}}outs(%[[F0]] :
func.func @shared_fill(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>, %v: tensor<8x8x3x3xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%z : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%x, %v : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%z : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %0, %1 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}

// -----

// A shared tensor.empty is split per use.
// CHECK-LABEL: func.func @shared_empty
//  CHECK-COUNT-2:   tensor.empty() : tensor<4xf32>
//      CHECK-NOT:   tensor.empty
func.func @shared_empty(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.exp ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.abs ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An init written through a slice and inserted back (the in-place pattern) stays shared.
// CHECK-LABEL: func.func @negative_slice_of_init
//  CHECK-COUNT-1:   tensor.empty
//      CHECK-NOT:   tensor.empty
func.func @negative_slice_of_init(%a: tensor<2xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %s = tensor.extract_slice %e[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %c = linalg.copy ins(%a : tensor<2xf32>) outs(%s : tensor<2xf32>) -> tensor<2xf32>
  %r = tensor.insert_slice %c into %e[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  return %r : tensor<4xf32>
}
