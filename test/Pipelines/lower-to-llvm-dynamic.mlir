// A module with dynamic dims (`?`) goes through the whole CPU pipeline to the LLVM dialect:
// the strategies that need static shapes leave its ops alone, and the tensors' dynamic sizes
// become the memref descriptors' (the results are out-params sized by the caller).
// RUN: versa-opt %s --split-input-file --lower-to-llvm=target=x86-64-v3 | FileCheck %s
// RUN: versa-opt %s --split-input-file --lower-to-llvm='opt-level=0 target=x86-64-v3' | FileCheck %s

// CHECK-LABEL: llvm.func @matmul_add
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.
//       CHECK:   llvm.return
func.func @matmul_add(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %m = "versa.matmul"(%a, %b) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %r = "versa.add"(%m, %c) : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: llvm.func @attention_like
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.
//       CHECK:   llvm.return
func.func @attention_like(%q: tensor<?x4x8x16xf32>, %k: tensor<?x4x16x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x32xf32> {
  %s = "versa.matmul"(%q, %k) : (tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>) -> tensor<?x4x8x8xf32>
  %p = "versa.softmax"(%s) {axis = -1 : i64} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %n = "versa.layer_norm"(%p, %g, %b) {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x4x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x4x8x8xf32>
  %t = "versa.transpose"(%n) {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x4x8x8xf32>) -> tensor<?x8x4x8xf32>
  %r = "versa.reshape"(%t) : (tensor<?x8x4x8xf32>) -> tensor<?x8x32xf32>
  %m = "versa.reduce_max"(%r) {axes = array<i64: 1>} : (tensor<?x8x32xf32>) -> tensor<?x32xf32>
  return %m : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: llvm.func @convnet
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.
//       CHECK:   llvm.return
func.func @convnet(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %d: tensor<8x1x3x3xf32>) -> tensor<?x8x2x2xf32> {
  %c = "versa.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NCHW"} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x8x8xf32>
  %r = "versa.relu"(%c) : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %e = "versa.conv2d"(%r, %d) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64, layout = "NCHW"} : (tensor<?x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x8x8xf32>
  %m = "versa.max_pool2d"(%e) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<?x8x8x8xf32>) -> tensor<?x8x4x4xf32>
  %a = "versa.avg_pool2d"(%m) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<?x8x4x4xf32>) -> tensor<?x8x2x2xf32>
  return %a : tensor<?x8x2x2xf32>
}

// -----

// CHECK-LABEL: llvm.func @movement
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.
//       CHECK:   llvm.return
func.func @movement(%x: tensor<?x16xf32>, %y: tensor<?x16xf32>, %i: tensor<?xi64>) -> tensor<?x20xf32> {
  %c = "versa.concat"(%x, %y) {axis = 0 : i64} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  %g = "versa.gather"(%c, %i) {axis = 0 : i64} : (tensor<?x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  %p = "versa.pad"(%g) {low = array<i64: 0, 2>, high = array<i64: 0, 2>, value = 0.0 : f32} : (tensor<?x16xf32>) -> tensor<?x20xf32>
  %s = "versa.cumsum"(%p) {axis = 1 : i64} : (tensor<?x20xf32>) -> tensor<?x20xf32>
  return %s : tensor<?x20xf32>
}
