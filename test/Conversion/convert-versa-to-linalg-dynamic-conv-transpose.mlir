// conv_transpose2d over a dynamic H and W (issue 46): the static lowering's phases, each
// counting the input's size plus a constant (out = H * s + a constant), so the padding past
// the input's end is static; each phase is a stride-1 NHWC conv of a window H + c rows tall,
// inserted with the stride at its phase's offset into an output of H * s + c rows.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse | FileCheck %s

// k3 s2 p1, output_padding [0, 1]: OH = 2H - 1, OW = 2W. The odd rows' phase (taps 2, 0 of
// the flipped filter) counts H - 1 rows; the odd columns' reads one column past W (padding 1).
// CHECK-LABEL: func.func @conv_transpose_dynamic_hw(
//  CHECK-SAME:   %[[X:.+]]: tensor<1x8x?x?xf32>
//   CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C3:.+]] = arith.constant 3 : index
//   CHECK-DAG:   %[[M1:.+]] = arith.constant -1 : index
//       CHECK:   %[[H:.+]] = tensor.dim %[[X]], %[[C2]]
//       CHECK:   %[[W:.+]] = tensor.dim %[[X]], %[[C3]]
//       CHECK:   %[[H2:.+]] = arith.muli %[[H]], %[[C2]]
//       CHECK:   %[[OH:.+]] = arith.addi %[[H2]], %[[M1]]
//       CHECK:   %[[OW:.+]] = arith.muli %[[W]], %[[C2]]
//       CHECK:   %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<1x8x?x?xf32>) {{.*}} permutation = [0, 2, 3, 1]
//       CHECK:   %[[W1:.+]] = arith.addi %[[W]], %c1
//       CHECK:   %[[PAD:.+]] = tensor.empty(%[[H]], %[[W1]]) : tensor<1x?x?x8xf32>
//       CHECK:   %[[XP:.+]] = tensor.insert_slice %[[T]] into %{{.+}}[0, 0, 0, 0] [1, %[[H]], %[[W]], 8]
//       CHECK:   %[[WIN:.+]] = tensor.extract_slice %[[XP]][0, 0, 0, 0] [1, %[[H]], %[[W]], 8]
//       CHECK:   %[[Y00:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[WIN]], %{{.+}} : tensor<1x?x?x8xf32>, tensor<1x1x8x4xf32>)
//       CHECK:   %[[Y01:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XP]], %{{.+}} : tensor<1x?x?x8xf32>, tensor<1x2x8x4xf32>)
//       CHECK:   %[[H1:.+]] = arith.addi %[[H]], %[[M1]]
//       CHECK:   %[[Y10:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[WIN]], %{{.+}} : tensor<1x?x?x8xf32>, tensor<2x1x8x4xf32>) outs(%{{.+}} : tensor<1x?x?x4xf32>)
//       CHECK:   %[[Y11:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XP]], %{{.+}} : tensor<1x?x?x8xf32>, tensor<2x2x8x4xf32>)
//       CHECK:   %[[OUT:.+]] = tensor.empty(%[[OH]], %[[OW]]) : tensor<1x?x?x4xf32>
//       CHECK:   %[[R0:.+]] = tensor.insert_slice %[[Y00]] into %[[OUT]][0, 0, 0, 0] [1, %[[H]], %[[W]], 4] [1, 2, 2, 1]
//       CHECK:   %[[R1:.+]] = tensor.insert_slice %[[Y01]] into %[[R0]][0, 0, 1, 0] [1, %[[H]], %[[W]], 4] [1, 2, 2, 1]
//       CHECK:   %[[R2:.+]] = tensor.insert_slice %[[Y10]] into %[[R1]][0, 1, 0, 0] [1, %[[H1]], %[[W]], 4] [1, 2, 2, 1]
//       CHECK:   %[[R3:.+]] = tensor.insert_slice %[[Y11]] into %[[R2]][0, 1, 1, 0] [1, %[[H1]], %[[W]], 4] [1, 2, 2, 1]
//       CHECK:   linalg.transpose ins(%[[R3]] : tensor<1x?x?x4xf32>) outs(%{{.+}} : tensor<1x4x?x?xf32>) permutation = [0, 3, 1, 2]
func.func @conv_transpose_dynamic_hw(%x: tensor<1x8x?x?xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x?x?xf32> {
  %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 0, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x?x?xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x?x?xf32>
  return %y : tensor<1x4x?x?xf32>
}

// -----

// k2 s2 with only H dynamic: four one-tap phases of H rows each (no padding), W static.
// CHECK-LABEL: func.func @conv_transpose_dynamic_h(
//  CHECK-SAME:   %[[X:.+]]: tensor<2x8x?x5xf32>
//       CHECK:   %[[H:.+]] = tensor.dim %[[X]], %c2
//       CHECK:   %[[OH:.+]] = arith.muli %[[H]], %c2
//   CHECK-NOT:   tensor.pad
//   CHECK-NOT:   tensor.extract_slice
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.+}} : tensor<2x?x5x4xf32>)
//       CHECK:   %[[OUT:.+]] = tensor.empty(%[[OH]]) : tensor<2x?x10x4xf32>
//       CHECK:   tensor.insert_slice %{{.+}} into %[[OUT]][0, 0, 0, 0] [2, %[[H]], 5, 4] [1, 2, 2, 1]
//       CHECK:   tensor.insert_slice {{.*}}[0, 1, 1, 0] [2, %[[H]], 5, 4] [1, 2, 2, 1]
func.func @conv_transpose_dynamic_h(%x: tensor<2x8x?x5xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<2x4x?x10xf32> {
  %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x8x?x5xf32>, tensor<8x4x2x2xf32>) -> tensor<2x4x?x10xf32>
  return %y : tensor<2x4x?x10xf32>
}
