// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg=pointwise-matmul=true | FileCheck %s

// With pointwise-matmul (lower-to-llvm sets it at O2+), an NHWC 1x1 conv of stride 1 without
// padding is the matmul it is (strided: on the pixels it reads): pixels x channels times channels x filters, so the matmul
// strategy (cache blocks, packed panels) takes it instead of the conv strategy.

// CHECK-LABEL: func.func @pointwise
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2], [3]] : tensor<2x7x7x64xf32> into tensor<98x64xf32>
//       CHECK:   %[[W:.+]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2], [3]] : tensor<1x1x64x32xf32> into tensor<64x32xf32>
//       CHECK:   %[[Y:.+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<98x64xf32>, tensor<64x32xf32>)
//       CHECK:   tensor.expand_shape %[[Y]] {{\[}}[0, 1, 2], [3]] output_shape [2, 7, 7, 32] : tensor<98x32xf32> into tensor<2x7x7x32xf32>
//   CHECK-NOT:   linalg.conv_2d
func.func @pointwise(%x: tensor<2x7x7x64xf32>, %w: tensor<1x1x64x32xf32>) -> tensor<2x7x7x32xf32> {
  %y = "versa.conv2d"(%x, %w) {layout = "NHWC"} : (tensor<2x7x7x64xf32>, tensor<1x1x64x32xf32>) -> tensor<2x7x7x32xf32>
  return %y : tensor<2x7x7x32xf32>
}

// -----

// A strided one (ResNet's downsampling shortcut) gathers the pixels it reads into a dense
// image first (every second row and column), then is the same matmul.

//   CHECK-DAG: #[[EVERY2:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2, d2 * 2, d3)>
// CHECK-LABEL: func.func @strided
//       CHECK:   %[[G:.+]] = linalg.generic {indexing_maps = [#[[EVERY2]], #{{.+}}]{{.*}} ins(%arg0 : tensor<1x8x8x16xf32>) outs(%{{.+}} : tensor<1x4x4x16xf32>)
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1, 2], [3]] : tensor<1x4x4x16xf32> into tensor<16x16xf32>
//       CHECK:   linalg.matmul ins(%[[X]], %{{.+}} : tensor<16x16xf32>, tensor<16x32xf32>)
//   CHECK-NOT:   linalg.conv_2d
func.func @strided(%x: tensor<1x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> tensor<1x4x4x32xf32> {
  %y = "versa.conv2d"(%x, %w) {layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x4x4x32xf32>
  return %y : tensor<1x4x4x32xf32>
}

// -----

// Padded, grouped or NCHW 1x1 convs stay convs (a padded one reads no [pixels, channels]
// matrix of its input).

// CHECK-LABEL: func.func @padded
//       CHECK:   linalg.conv_2d_nhwc_hwcf
//   CHECK-NOT:   linalg.matmul
func.func @padded(%x: tensor<1x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> tensor<1x10x10x32xf32> {
  %y = "versa.conv2d"(%x, %w) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<1x10x10x32xf32>
  return %y : tensor<1x10x10x32xf32>
}

// -----

// CHECK-LABEL: func.func @nchw
//       CHECK:   linalg.conv_2d_nchw_fchw
//   CHECK-NOT:   linalg.matmul
func.func @nchw(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %y = "versa.conv2d"(%x, %w) : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  return %y : tensor<1x32x8x8xf32>
}
