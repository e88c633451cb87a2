// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s

// conv_transpose2d as sub-pixel convolutions (passes/lower_conv_transpose.py): one stride-1
// NHWC conv of the original input per output phase (no input spread out with zeros), each
// inserted with the stride into the NHWC result, which is transposed back to NCHW.

// k3 s2 p1 op1: row and column phases have 1 and 2 taps (filters 1x1, 1x2, 2x1, 2x2, flipped
// with their channels swapped); the input is padded once (a row and a column at its end) and
// the phase convs read 5x6, 5x7, 6x6 and 6x7 windows of it.
//   CHECK-DAG: #[[$TAP11:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, 1, 1)>
//   CHECK-DAG: #[[$TAP22:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0 * -2 + 2, d1 * -2 + 2)>
// CHECK-LABEL: func.func @conv_transpose2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4x5x6xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//       CHECK:   %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<1x4x5x6xf32>) {{.+}} permutation = [0, 2, 3, 1]
//       CHECK:   %[[P:.+]] = tensor.insert_slice %[[T]] into %{{.+}}[0, 0, 0, 0] [1, 5, 6, 4] [1, 1, 1, 1] : tensor<1x5x6x4xf32> into tensor<1x6x7x4xf32>
//       CHECK:   %[[F0:.+]] = linalg.generic {indexing_maps = [#[[$TAP11]], #{{.+}}]{{.+}} ins(%[[W]] : tensor<4x3x3x3xf32>) outs(%{{.+}} : tensor<1x1x4x3xf32>)
//       CHECK:   %[[Y0:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%[[T]], %[[F0]] : tensor<1x5x6x4xf32>, tensor<1x1x4x3xf32>) outs(%{{.+}} : tensor<1x5x6x3xf32>)
//       CHECK:   %[[V1:.+]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 5, 7, 4] [1, 1, 1, 1]
//       CHECK:   %[[Y1:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%[[V1]], %{{.+}} : tensor<1x5x7x4xf32>, tensor<1x2x4x3xf32>) outs(%{{.+}} : tensor<1x5x6x3xf32>)
//       CHECK:   %[[V2:.+]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 6, 6, 4] [1, 1, 1, 1]
//       CHECK:   %[[Y2:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%[[V2]], %{{.+}} : tensor<1x6x6x4xf32>, tensor<2x1x4x3xf32>) outs(%{{.+}} : tensor<1x5x6x3xf32>)
//       CHECK:   %[[F3:.+]] = linalg.generic {indexing_maps = [#[[$TAP22]], #{{.+}}]{{.+}} ins(%[[W]] : tensor<4x3x3x3xf32>) outs(%{{.+}} : tensor<2x2x4x3xf32>)
//       CHECK:   %[[Y3:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%[[P]], %[[F3]] : tensor<1x6x7x4xf32>, tensor<2x2x4x3xf32>) outs(%{{.+}} : tensor<1x5x6x3xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[I0:.+]] = tensor.insert_slice %[[Y0]] into %{{.+}}[0, 0, 0, 0] [1, 5, 6, 3] [1, 2, 2, 1]
//       CHECK:   %[[I1:.+]] = tensor.insert_slice %[[Y1]] into %[[I0]][0, 0, 1, 0] [1, 5, 6, 3] [1, 2, 2, 1]
//       CHECK:   %[[I2:.+]] = tensor.insert_slice %[[Y2]] into %[[I1]][0, 1, 0, 0] [1, 5, 6, 3] [1, 2, 2, 1]
//       CHECK:   %[[I3:.+]] = tensor.insert_slice %[[Y3]] into %[[I2]][0, 1, 1, 0] [1, 5, 6, 3] [1, 2, 2, 1] : tensor<1x5x6x3xf32> into tensor<1x10x12x3xf32>
//       CHECK:   %[[R:.+]] = linalg.transpose ins(%[[I3]] : tensor<1x10x12x3xf32>) {{.+}} permutation = [0, 3, 1, 2]
//       CHECK:   return %[[R]]
func.func @conv_transpose2d(%x: tensor<1x4x5x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10x12xf32> {
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x12xf32>
  return %0 : tensor<1x3x10x12xf32>
}

// -----

// A kernel smaller than the stride: three of the four phases have no taps and stay zero, so
// the result starts filled; one 1x1 conv fills the phase (0, 0).
// CHECK-LABEL: func.func @conv_transpose2d_empty_phases
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} outs(%{{.+}} : tensor<1x5x5x2xf32>)
//   CHECK-NOT:   linalg.conv_2d
//       CHECK:   %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x9x9x2xf32>)
//       CHECK:   tensor.insert_slice %[[Y]] into %[[Z]][0, 0, 0, 0] [1, 5, 5, 2] [1, 2, 2, 1]
//   CHECK-NOT:   tensor.insert_slice
func.func @conv_transpose2d_empty_phases(%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x2x9x9xf32> {
  %0 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x9x9xf32>
  return %0 : tensor<1x2x9x9xf32>
}

// -----

// Stride 1: one phase, the flipped filter over the padded input with the dilation. A padding (3)
// beyond dilation * (k - 1) = 2 crops: the window starts at the input's second row and column
// and runs two rows and columns past its end (a view of the padded input).
//   CHECK-DAG: #[[$FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, -d0 + 1, -d1 + 1)>
// CHECK-LABEL: func.func @conv_transpose2d_crop
//       CHECK:   %[[S:.+]] = tensor.extract_slice %{{.+}}[0, 1, 1, 0] [1, 6, 6, 2] [1, 1, 1, 1] : tensor<1x7x7x2xf32> to tensor<1x6x6x2xf32>
//       CHECK:   %[[F:.+]] = linalg.generic {indexing_maps = [#[[$FLIP]], #{{.+}}]{{.+}} ins(%{{.+}} : tensor<2x3x2x2xf32>) outs(%{{.+}} : tensor<2x2x2x3xf32>)
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[S]], %[[F]] : tensor<1x6x6x2xf32>, tensor<2x2x2x3xf32>) outs(%{{.+}} : tensor<1x4x4x3xf32>)
//   CHECK-NOT:   tensor.insert_slice
//       CHECK:   linalg.transpose ins(%[[Y]] : tensor<1x4x4x3xf32>)
func.func @conv_transpose2d_crop(%x: tensor<1x2x5x5xf32>, %w: tensor<2x3x2x2xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "versa.conv_transpose2d"(%x, %w) {padding = array<i64: 3, 3, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// No filters (F = 0) with groups > 1: nothing to compute (and the grouped maps would divide
// by F/groups = 0): the result is a fill.
// CHECK-LABEL: func.func @conv_transpose2d_no_filters
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[Y:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x0x7x7xf32>)
//  CHECK-NEXT:   return %[[Y]]
func.func @conv_transpose2d_no_filters(%x: tensor<1x4x5x5xf32>, %w: tensor<4x0x3x3xf32>) -> tensor<1x0x7x7xf32> {
  %0 = "versa.conv_transpose2d"(%x, %w) {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x0x3x3xf32>) -> tensor<1x0x7x7xf32>
  return %0 : tensor<1x0x7x7xf32>
}
