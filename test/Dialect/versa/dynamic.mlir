// RUN: versa-opt %s --split-input-file | FileCheck %s
// RUN: versa-opt %s --split-input-file | versa-opt --split-input-file | FileCheck %s

// Dynamic dims (`?`): the shape rules take them, and relations they cannot check (a matmul's
// K, a reshape's dynamic sizes) are left to the checks before each call.

// CHECK-LABEL: func.func @mlp
//       CHECK:   "versa.matmul"(%{{.*}}, %{{.*}}) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
//       CHECK:   "versa.add"(%{{.*}}, %{{.*}}) : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
//       CHECK:   "versa.softmax"(%{{.*}}) {axis = 1 : i64} : (tensor<?x32xf32>) -> tensor<?x32xf32>
func.func @mlp(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %1 = "versa.add"(%0, %b) : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %2 = "versa.softmax"(%1) {axis = 1 : i64} : (tensor<?x32xf32>) -> tensor<?x32xf32>
  return %2 : tensor<?x32xf32>
}

// -----

// A dynamic dim against a static one is the static one; against a size-1 dim it stays dynamic.
// CHECK-LABEL: func.func @broadcasts
//       CHECK:   (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
//       CHECK:   (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
func.func @broadcasts(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>, %c: tensor<1x8xf32>, %d: tensor<?x?xf32>, %e: tensor<?x1xf32>) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>) {
  %0 = "versa.add"(%a, %b) : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.mul"(%a, %c) : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %2 = "versa.sub"(%d, %e) : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>
}

// -----

// Reshapes: one dynamic result dim is what the element count leaves; several pair with the
// input's dynamic dims, static products between them equal.
// CHECK-LABEL: func.func @reshapes
//       CHECK:   (tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32>
//       CHECK:   (tensor<?x?x12x64xf32>) -> tensor<?x768xf32>
func.func @reshapes(%x: tensor<?x?x768xf32>) -> tensor<?x768xf32> {
  %0 = "versa.reshape"(%x) : (tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32>
  %1 = "versa.reshape"(%0) : (tensor<?x?x12x64xf32>) -> tensor<?x768xf32>
  return %1 : tensor<?x768xf32>
}

// -----

// Convolutions and pools with a dynamic batch and image; the channels stay static.
// CHECK-LABEL: func.func @cnn
//       CHECK:   (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
//       CHECK:   (tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
//       CHECK:   (tensor<?x8x?x?xf32>) -> tensor<?x8xf32>
func.func @cnn(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8xf32> {
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  %1 = "versa.max_pool2d"(%0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  %2 = "versa.reduce_mean"(%1) {axes = array<i64: 2, 3>} : (tensor<?x8x?x?xf32>) -> tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @data_movement
//       CHECK:   (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
//       CHECK:   (tensor<?x4xf32>) -> tensor<4x?xf32>
//       CHECK:   (tensor<4x?xf32>) -> tensor<4x2xf32>
//       CHECK:   (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
func.func @data_movement(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %i: tensor<?xi64>) -> (tensor<4x2xf32>, tensor<?x4xf32>) {
  %0 = "versa.concat"(%a, %b) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "versa.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %2 = "versa.slice"(%1) {starts = array<i64: 0, 0>, limits = array<i64: 4, 2>} : (tensor<4x?xf32>) -> tensor<4x2xf32>
  %3 = "versa.gather"(%0, %i) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  return %2, %3 : tensor<4x2xf32>, tensor<?x4xf32>
}
