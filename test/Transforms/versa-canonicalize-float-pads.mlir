// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// A TF "same" pad before a stride-2 depthwise conv (0 before, 1 after) joins the conv's padding.
// CHECK-LABEL: func.func @zero_pad_into_depthwise_nchw
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x8x6x6xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
//   CHECK-NOT:   "versa.pad"
//       CHECK:   "versa.conv2d"(%[[X]], %[[W]]) {groups = 8 : i64, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>}
func.func @zero_pad_into_depthwise_nchw(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %p = "versa.pad"(%x) {low = array<i64: 0, 0, 0, 0>, high = array<i64: 0, 0, 1, 1>, value = 0.0 : f32} : (tensor<1x8x6x6xf32>) -> tensor<1x8x7x7xf32>
  %y = "versa.conv2d"(%p, %w) {groups = 8 : i64, strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %y : tensor<1x8x3x3xf32>
}

// -----

// NHWC, added to a padding the conv already has.
// CHECK-LABEL: func.func @zero_pad_into_padded_conv_nhwc
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4x4x2xf32>, %[[W:.+]]: tensor<3x3x2x5xf32>)
//   CHECK-NOT:   "versa.pad"
//       CHECK:   "versa.conv2d"(%[[X]], %[[W]]) {layout = "NHWC", padding = array<i64: 2, 1, 1, 2>}
func.func @zero_pad_into_padded_conv_nhwc(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x5xf32>) -> tensor<1x5x5x5xf32> {
  %p = "versa.pad"(%x) {low = array<i64: 0, 1, 0, 0>, high = array<i64: 0, 0, 1, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x5x5x2xf32>
  %y = "versa.conv2d"(%p, %w) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x5x5x5xf32>
  return %y : tensor<1x5x5x5xf32>
}

// -----

// The conv pads with zeros: a pad with another value stays.
// CHECK-LABEL: func.func @negative_nonzero_pad
//       CHECK:   "versa.pad"
//       CHECK:   "versa.conv2d"
func.func @negative_nonzero_pad(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %p = "versa.pad"(%x) {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 1.0 : f32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y = "versa.conv2d"(%p, %w) : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A pad of the channels is no spatial padding.
// CHECK-LABEL: func.func @negative_channel_pad
//       CHECK:   "versa.pad"
//       CHECK:   "versa.conv2d"
func.func @negative_channel_pad(%x: tensor<1x1x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %p = "versa.pad"(%x) {low = array<i64: 0, 1, 0, 0>, high = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = "versa.conv2d"(%p, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A pad with another user stays computed: the conv keeps reading it.
// CHECK-LABEL: func.func @negative_pad_with_two_users
//       CHECK:   %[[P:.+]] = "versa.pad"
//       CHECK:   "versa.conv2d"(%[[P]]
func.func @negative_pad_with_two_users(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>) {
  %p = "versa.pad"(%x) {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y = "versa.conv2d"(%p, %w) : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %y, %p : tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>
}

// -----

// The stem's pad behind versa-layout's NCHW -> NHWC transpose: its sides follow the permutation.
// CHECK-LABEL: func.func @zero_pad_through_transpose
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<3x3x3x4xf32>)
//   CHECK-NOT:   "versa.pad"
//       CHECK:   %[[T:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
//       CHECK:   "versa.conv2d"(%[[T]], %[[W]]) {layout = "NHWC", padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>}
func.func @zero_pad_through_transpose(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %p = "versa.pad"(%x) {low = array<i64: 0, 0, 0, 0>, high = array<i64: 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x9xf32>
  %t = "versa.transpose"(%p) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x9x9xf32>) -> tensor<1x9x9x3xf32>
  %y = "versa.conv2d"(%t, %w) {layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
