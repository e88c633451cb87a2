// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-collapse-elementwise)' | FileCheck %s

// A per-channel scale of an NCHW tensor: N and C merge (both read by both operands), H and W
// merge (the scale reads neither): rows of 784, not 28, and the scale one scalar a row.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @channel_scale
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<4x96x28x28xf32> into tensor<384x784xf32>
//       CHECK:   %[[S:.+]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : tensor<4x96x1x1xf32> into tensor<384xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[S]] : tensor<384x784xf32>, tensor<384xf32>)
//       CHECK:     arith.mulf
//       CHECK:   tensor.expand_shape %[[R]] {{\[}}[0, 1], [2, 3]] output_shape [4, 96, 28, 28]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @channel_scale(%x: tensor<4x96x28x28xf32>, %s: tensor<4x96x1x1xf32>) -> tensor<4x96x28x28xf32> {
  %e = tensor.empty() : tensor<4x96x28x28xf32>
  %r = linalg.generic {indexing_maps = [#id4, #nc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<4x96x28x28xf32>, tensor<4x96x1x1xf32>) outs(%e : tensor<4x96x28x28xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x96x28x28xf32>
  return %r : tensor<4x96x28x28xf32>
}

// -----

// The first half of each row (glu): its rows are not contiguous, so rows and columns stay
// apart (a collapse would copy it); the outer dims, whole rows of the source, still merge.
// CHECK-LABEL: func.func @half_rows
//       CHECK:   %[[H:.+]] = tensor.extract_slice %arg0[0, 0, 0] [4, 8, 32] [1, 1, 1]
//       CHECK:   tensor.collapse_shape %[[H]] {{\[}}[0, 1], [2]] : tensor<4x8x32xf32> into tensor<32x32xf32>
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @half_rows(%x: tensor<4x8x64xf32>) -> tensor<4x8x32xf32> {
  %h = tensor.extract_slice %x[0, 0, 0] [4, 8, 32] [1, 1, 1] : tensor<4x8x64xf32> to tensor<4x8x32xf32>
  %e = tensor.empty() : tensor<4x8x32xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h : tensor<4x8x32xf32>) outs(%e : tensor<4x8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8x32xf32>
  return %r : tensor<4x8x32xf32>
}

// -----

// Left alone: a body reading linalg.index (its loops have meanings), and a transpose whose
// operands read no two adjacent loops in the same order.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   return
#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @left_alone(%x: tensor<8x16xf32>, %y: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x16xf32>
  return %r, %t : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Named copies no strategy took become generics for versa-vectorize: a transpose that keeps
// the innermost dim (a head split: rows of 64 copied whole) and a slice's copy (its outer dims
// merge, as it takes dim 1 whole; its rows of 5x16 out of 9x16 also merge, being contiguous). A transpose that moves the innermost dim stays named (the
// transpose strategy's, or scalar loops).
// CHECK-LABEL: func.func @copies
//       CHECK:   linalg.generic {{.+}} ins(%arg0 : tensor<1x197x12x64xf32>) outs(%{{.+}} : tensor<1x12x197x64xf32>)
//       CHECK:   tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2, 3]] : tensor<2x8x5x16xf32> into tensor<16x80xf32>
//       CHECK:   linalg.generic {{.+}} ins(%{{.+}} : tensor<16x80xf32>)
//       CHECK:   linalg.transpose ins(%arg2 : tensor<8x6xf32>)
func.func @copies(%x: tensor<1x197x12x64xf32>, %y: tensor<2x8x9x16xf32>, %z: tensor<8x6xf32>)
    -> (tensor<1x12x197x64xf32>, tensor<2x8x5x16xf32>, tensor<6x8xf32>) {
  %e0 = tensor.empty() : tensor<1x12x197x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x197x12x64xf32>) outs(%e0 : tensor<1x12x197x64xf32>) permutation = [0, 2, 1, 3]
  %s = tensor.extract_slice %y[0, 0, 2, 0] [2, 8, 5, 16] [1, 1, 1, 1] : tensor<2x8x9x16xf32> to tensor<2x8x5x16xf32>
  %e1 = tensor.empty() : tensor<2x8x5x16xf32>
  %c = linalg.copy ins(%s : tensor<2x8x5x16xf32>) outs(%e1 : tensor<2x8x5x16xf32>) -> tensor<2x8x5x16xf32>
  %e2 = tensor.empty() : tensor<6x8xf32>
  %u = linalg.transpose ins(%z : tensor<8x6xf32>) outs(%e2 : tensor<6x8xf32>) permutation = [1, 0]
  return %t, %c, %u : tensor<1x12x197x64xf32>, tensor<2x8x5x16xf32>, tensor<6x8xf32>
}
