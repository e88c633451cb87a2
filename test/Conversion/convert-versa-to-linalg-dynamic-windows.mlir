// Pools with a dynamic H or W, and conv_transpose2d with a dynamic batch (issue 46): the
// result's dynamic extents are computed from the input's dims with the static formulas
// (a window count: (H + pad - K) floordiv s + 1), the input padded in a tensor of H + pad
// rows, one named pooling op over it; an average divides by the count of input elements per
// window, per axis (min(o*s - top + K, H) - max(o*s - top, 0)), read at run time.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @max_pool_dynamic_hw(
//  CHECK-SAME:   %[[X:.+]]: tensor<2x4x?x?xf32>
//   CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C3:.+]] = arith.constant 3 : index
//   CHECK-DAG:   %[[MINUS1:.+]] = arith.constant -1 : index
//       CHECK:   %[[H:.+]] = tensor.dim %[[X]], %[[C2]]
//       CHECK:   %[[H1:.+]] = arith.addi %[[H]], %[[MINUS1]] : index
//       CHECK:   %[[HQ:.+]] = arith.divui %[[H1]], %[[C2]] : index
//       CHECK:   %[[OH:.+]] = arith.addi %[[HQ]], %{{.+}} : index
//       CHECK:   %[[W:.+]] = tensor.dim %[[X]], %[[C3]]
//       CHECK:   %[[W1:.+]] = arith.addi %[[W]], %[[MINUS1]] : index
//       CHECK:   %[[WQ:.+]] = arith.divui %[[W1]], %[[C2]] : index
//       CHECK:   %[[OW:.+]] = arith.addi %[[WQ]], %{{.+}} : index
//       CHECK:   %[[PH:.+]] = arith.addi %{{.+}}, %[[C2]] : index
//       CHECK:   %[[PW:.+]] = arith.addi %{{.+}}, %[[C2]] : index
//       CHECK:   tensor.empty(%[[PH]], %[[PW]]) : tensor<2x4x?x?xf32>
//       CHECK:   %[[XP:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 0, 1, 1]
//       CHECK:   %[[INIT:.+]] = tensor.empty(%[[OH]], %[[OW]]) : tensor<2x4x?x?xf32>
//       CHECK:   %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[INIT]]
//       CHECK:   %[[Y:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XP]], %{{.+}} : tensor<2x4x?x?xf32>, tensor<3x3xf32>) outs(%[[FILL]] : tensor<2x4x?x?xf32>)
//       CHECK:   return %[[Y]]
func.func @max_pool_dynamic_hw(%x: tensor<2x4x?x?xf32>) -> tensor<2x4x?x?xf32> {
  %y = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<2x4x?x?xf32>) -> tensor<2x4x?x?xf32>
  return %y : tensor<2x4x?x?xf32>
}

// -----

// An NHWC average over a dynamic H (W static): counts per row from H at run time, per column
// a count of the static W; the division joins them.
// CHECK-LABEL: func.func @avg_pool_dynamic_h(
//  CHECK-SAME:   %[[X:.+]]: tensor<1x?x6x4xf32>
//       CHECK:   %[[SUM:.+]] = linalg.pooling_nhwc_sum {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x?x8x4xf32>, tensor<3x3xf32>)
//       CHECK:   %[[H:.+]] = tensor.dim %[[X]], %c1
//       CHECK:   %[[ROWS:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<?xf32>)
//       CHECK:     %[[O:.+]] = linalg.index 0 : index
//       CHECK:     %[[START:.+]] = arith.muli %[[O]], %c2
//       CHECK:     %[[FIRST:.+]] = arith.subi %[[START]], %c1
//       CHECK:     %[[END:.+]] = arith.addi %[[START]], %c2
//       CHECK:     %[[CLIPPED:.+]] = arith.minsi %[[END]], %[[H]] : index
//       CHECK:     %[[LOW:.+]] = arith.maxsi %[[FIRST]], %c0 : index
//       CHECK:     arith.subi %[[CLIPPED]], %[[LOW]] : index
//       CHECK:   %[[COLS:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<6xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[SUM]], %[[ROWS]], %[[COLS]] : tensor<1x?x6x4xf32>, tensor<?xf32>, tensor<6xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.divf
func.func @avg_pool_dynamic_h(%x: tensor<1x?x6x4xf32>) -> tensor<1x?x6x4xf32> {
  %y = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x?x6x4xf32>) -> tensor<1x?x6x4xf32>
  return %y : tensor<1x?x6x4xf32>
}

// -----

// conv_transpose2d with a dynamic batch: its phase convs and the interleave take the batch
// from the input (tensor.dim), every other size as in the static lowering.
// CHECK-LABEL: func.func @conv_transpose_dynamic_batch(
//  CHECK-SAME:   %[[X:.+]]: tensor<?x8x5x5xf32>
//       CHECK:   %[[N:.+]] = tensor.dim %[[X]], %c0
//       CHECK:   tensor.empty(%[[N]]) : tensor<?x10x10x4xf32>
//       CHECK:   tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [%[[N]], 5, 5, 4] [1, 2, 2, 1] : tensor<?x5x5x4xf32> into tensor<?x10x10x4xf32>
//       CHECK:   tensor.insert_slice %{{.+}} into %{{.+}}[0, 1, 1, 0] [%[[N]], 5, 5, 4] [1, 2, 2, 1] : tensor<?x5x5x4xf32> into tensor<?x10x10x4xf32>
func.func @conv_transpose_dynamic_batch(%x: tensor<?x8x5x5xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<?x4x10x10xf32> {
  %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<?x8x5x5xf32>, tensor<8x4x2x2xf32>) -> tensor<?x4x10x10xf32>
  return %y : tensor<?x4x10x10xf32>
}
