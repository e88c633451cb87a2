// RUN: versa-opt %s --split-input-file --versa-collapse-epilogues | FileCheck %s

// A linear layer's bias and residual on [3, 37, 96]: the generic runs on the 2-D matmul result
// in place, the residual collapsed (free), the bias as it is; the result expanded after it.
// CHECK-LABEL: func.func @linear_epilogue
//       CHECK:   %[[MM:.+]] = linalg.matmul
//       CHECK:   %[[RES:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<3x37x96xf32> into tensor<111x96xf32>
//       CHECK:   %[[G:.+]] = linalg.generic {indexing_maps = [#[[BIAS:.+]], #[[ID:.+]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
//  CHECK-SAME:     ins(%{{.+}}, %[[RES]] : tensor<96xf32>, tensor<111x96xf32>) outs(%[[MM]] : tensor<111x96xf32>)
//       CHECK:   %[[OUT:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [3, 37, 96]
//       CHECK:   return %[[OUT]]
#bias = affine_map<(d0, d1, d2) -> (d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @linear_epilogue(%x: tensor<111x64xf32>, %w: tensor<64x96xf32>, %b: tensor<96xf32>, %r: tensor<3x37x96xf32>) -> tensor<3x37x96xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<111x96xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<111x96xf32>) -> tensor<111x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<111x64xf32>, tensor<64x96xf32>) outs(%z : tensor<111x96xf32>) -> tensor<111x96xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2]] output_shape [3, 37, 96] : tensor<111x96xf32> into tensor<3x37x96xf32>
  %0 = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b, %r : tensor<96xf32>, tensor<3x37x96xf32>) outs(%v : tensor<3x37x96xf32>) {
  ^bb0(%bi: f32, %ri: f32, %acc: f32):
    %s = arith.addf %acc, %bi : f32
    %t = arith.addf %s, %ri : f32
    linalg.yield %t : f32
  } -> tensor<3x37x96xf32>
  return %0 : tensor<3x37x96xf32>
}

// -----

// Unfused: the matmul result is an input and the init a fresh tensor of rank 3.
// CHECK-LABEL: func.func @matmul_input
//       CHECK:   %[[MM:.+]] = linalg.matmul
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<111x96xf32>)
//       CHECK:   tensor.expand_shape
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @matmul_input(%x: tensor<111x64xf32>, %w: tensor<64x96xf32>) -> tensor<3x37x96xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<111x96xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<111x96xf32>) -> tensor<111x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<111x64xf32>, tensor<64x96xf32>) outs(%z : tensor<111x96xf32>) -> tensor<111x96xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2]] output_shape [3, 37, 96] : tensor<111x96xf32> into tensor<3x37x96xf32>
  %i = tensor.empty() : tensor<3x37x96xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : tensor<3x37x96xf32>) outs(%i : tensor<3x37x96xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<3x37x96xf32>
  return %0 : tensor<3x37x96xf32>
}

// -----

// An operand broadcast over the batch only ([37, 96]) reads some leading dims: collapsing
// would need a copy of it per batch, so the generic stays rank 3. So does one that reads its
// indices, and one on an expanded value that no matmul produced.
// CHECK-LABEL: func.func @negative_partial_broadcast
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-LABEL: func.func @negative_index
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-LABEL: func.func @negative_not_a_matmul
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
#row = affine_map<(d0, d1, d2) -> (d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @negative_partial_broadcast(%x: tensor<111x64xf32>, %w: tensor<64x96xf32>, %p: tensor<37x96xf32>) -> tensor<3x37x96xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<111x96xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<111x96xf32>) -> tensor<111x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<111x64xf32>, tensor<64x96xf32>) outs(%z : tensor<111x96xf32>) -> tensor<111x96xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2]] output_shape [3, 37, 96] : tensor<111x96xf32> into tensor<3x37x96xf32>
  %0 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<37x96xf32>) outs(%v : tensor<3x37x96xf32>) {
  ^bb0(%pi: f32, %acc: f32):
    %s = arith.addf %acc, %pi : f32
    linalg.yield %s : f32
  } -> tensor<3x37x96xf32>
  return %0 : tensor<3x37x96xf32>
}
func.func @negative_index(%x: tensor<111x64xf32>, %w: tensor<64x96xf32>) -> tensor<3x37x96xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<111x96xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<111x96xf32>) -> tensor<111x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<111x64xf32>, tensor<64x96xf32>) outs(%z : tensor<111x96xf32>) -> tensor<111x96xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2]] output_shape [3, 37, 96] : tensor<111x96xf32> into tensor<3x37x96xf32>
  %0 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%v : tensor<3x37x96xf32>) {
  ^bb0(%acc: f32):
    %i = linalg.index 1 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %s = arith.addf %acc, %f : f32
    linalg.yield %s : f32
  } -> tensor<3x37x96xf32>
  return %0 : tensor<3x37x96xf32>
}
func.func @negative_not_a_matmul(%x: tensor<111x96xf32>) -> tensor<3x37x96xf32> {
  %c = arith.constant 0.0 : f32
  %v = tensor.expand_shape %x [[0, 1], [2]] output_shape [3, 37, 96] : tensor<111x96xf32> into tensor<3x37x96xf32>
  %0 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%v : tensor<3x37x96xf32>) {
  ^bb0(%acc: f32):
    %m = arith.maximumf %acc, %c : f32
    linalg.yield %m : f32
  } -> tensor<3x37x96xf32>
  return %0 : tensor<3x37x96xf32>
}

// -----

// A batch matmul over [2, 3] batches (attention scores): the scale (a size-1 tensor broadcast
// by the constant map (0), as versa lowers a scalar) and a per-batch mask [2, 3, 16, 24] run on
// the 3-D [6, 16, 24] result, the mask collapsed, the scale as it is; the dead expansion of the
// contraction goes, so the generic is its single user (an epilogue).
// CHECK-LABEL: func.func @batch_matmul_epilogue
//       CHECK:   %[[MM:.+]] = linalg.batch_matmul
//   CHECK-NOT:   tensor.expand_shape %[[MM]]
//       CHECK:   %[[MASK:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2], [3]] : tensor<2x3x16x24xf32> into tensor<6x16x24xf32>
//       CHECK:   %[[G:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]}
//  CHECK-SAME:     ins(%{{.+}}, %[[MASK]] : tensor<1xf32>, tensor<6x16x24xf32>) outs(%[[MM]] : tensor<6x16x24xf32>)
//       CHECK:   %[[OUT:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 16, 24]
//       CHECK:   return %[[OUT]]
#scalar = affine_map<(d0, d1, d2, d3) -> (0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @batch_matmul_epilogue(%q: tensor<6x16x8xf32>, %k: tensor<6x8x24xf32>, %s: tensor<1xf32>, %mask: tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x16x24xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %mm = linalg.batch_matmul ins(%q, %k : tensor<6x16x8xf32>, tensor<6x8x24xf32>) outs(%z : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2], [3]] output_shape [2, 3, 16, 24] : tensor<6x16x24xf32> into tensor<2x3x16x24xf32>
  %0 = linalg.generic {indexing_maps = [#scalar, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<1xf32>, tensor<2x3x16x24xf32>) outs(%v : tensor<2x3x16x24xf32>) {
  ^bb0(%si: f32, %mi: f32, %acc: f32):
    %p = arith.mulf %acc, %si : f32
    %t = arith.addf %p, %mi : f32
    linalg.yield %t : f32
  } -> tensor<2x3x16x24xf32>
  return %0 : tensor<2x3x16x24xf32>
}

// -----

// A mask shared by the heads ([2, 1, 16, 24] read as (d0, d2, d3)) reads only some of the
// batch dims: the generic stays rank 4.
// CHECK-LABEL: func.func @negative_batch_partial_broadcast
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
#heads = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @negative_batch_partial_broadcast(%q: tensor<6x16x8xf32>, %k: tensor<6x8x24xf32>, %mask: tensor<2x16x24xf32>) -> tensor<2x3x16x24xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x16x24xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %mm = linalg.batch_matmul ins(%q, %k : tensor<6x16x8xf32>, tensor<6x8x24xf32>) outs(%z : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %v = tensor.expand_shape %mm [[0, 1], [2], [3]] output_shape [2, 3, 16, 24] : tensor<6x16x24xf32> into tensor<2x3x16x24xf32>
  %0 = linalg.generic {indexing_maps = [#heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%mask : tensor<2x16x24xf32>) outs(%v : tensor<2x3x16x24xf32>) {
  ^bb0(%mi: f32, %acc: f32):
    %t = arith.addf %acc, %mi : f32
    linalg.yield %t : f32
  } -> tensor<2x3x16x24xf32>
  return %0 : tensor<2x3x16x24xf32>
}
