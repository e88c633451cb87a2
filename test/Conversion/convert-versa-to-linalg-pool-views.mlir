// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg=pool-views=true --canonicalize --cse | FileCheck %s

// With pool-views (lower-to-llvm sets it at O2+), a pool whose kernel equals its stride is one
// reduction over a reshape of the input: [N, C, OH, s, OW, s], reduced over the two s dims.
// No padded copy, no strided access: every indexing map is a projection.
//   CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
//   CHECK-DAG: #[[$KEPT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @max_pool_kernel_is_stride
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x3x4x6xf32>)
//       CHECK:   %[[VIEW:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [2, 3, 4, 2, 6, 2]
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ALL]], #[[$KEPT]]],
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]}
//  CHECK-SAME:     ins(%[[VIEW]] : tensor<2x3x4x2x6x2xf32>) outs(%[[INIT]] : tensor<2x3x4x6xf32>)
//       CHECK:     arith.maximumf
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[Y]]
func.func @max_pool_kernel_is_stride(%x: tensor<2x3x8x12xf32>) -> tensor<2x3x4x6xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x12xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// -----

// A 3x3 window with stride 2 spans two groups of strides per axis (taps 0-1 and 2): one view
// per group pair, starting 0 or 2 elements further along H and W, all reduced by one generic;
// the taps past the kernel (the second group's r = 1) are masked with the identity (0 for a
// sum). The interior block [0, 3)² reads Q*s = 4 elements per window inside the input; the
// last row and column of windows would read past it, so they pool small padded copies.
// CHECK-LABEL: func.func @avg_pool_nhwc_two_groups
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<1x3x3x16xf32>)
//       CHECK:   tensor.extract_slice %arg0[0, 0, 0, 0] [1, 6, 6, 16]
//       CHECK:   tensor.extract_slice %arg0[0, 0, 2, 0] [1, 6, 6, 16]
//       CHECK:   tensor.extract_slice %arg0[0, 2, 0, 0] [1, 6, 6, 16]
//       CHECK:   tensor.extract_slice %arg0[0, 2, 2, 0] [1, 6, 6, 16]
//       CHECK:   linalg.generic
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction", "parallel"]
//  CHECK-SAME:     outs(%[[INIT]] : tensor<1x3x3x16xf32>)
//       CHECK:     %[[RW:.+]] = linalg.index 4 : index
//       CHECK:     %[[IN_W:.+]] = arith.cmpi ult, %[[RW]], %[[C1]] : index
//       CHECK:     arith.select %[[IN_W]], %{{.+}}, %[[ZERO]] : f32
//       CHECK:   %[[EDGE:.+]] = tensor.extract_slice %arg0[0, 0, 6, 0] [1, 8, 3, 16]
//       CHECK:   tensor.insert_slice %[[EDGE]] into %{{.+}}[0, 0, 0, 0] [1, 8, 3, 16]
//       CHECK:   linalg.generic
//  CHECK-SAME:     outs(%{{.+}} : tensor<1x3x1x16xf32>)
func.func @avg_pool_nhwc_two_groups(%x: tensor<1x9x9x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x9x9x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

