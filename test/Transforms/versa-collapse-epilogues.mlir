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
