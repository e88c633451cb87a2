// RUN: versa-opt %s --versa-optimize=target=x86-64-v4 | FileCheck %s
// RUN: versa-opt %s --target x86-64-v3 --versa-optimize | FileCheck %s
// RUN: versa-opt %s --versa-optimize=target=nvptx-sm90 | FileCheck %s --check-prefix=GPU
// RUN: not versa-opt %s --versa-optimize=target=nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// versa-optimize is versa-layout for the target, versa-canonicalize, versa-fuse: on a CPU the
// conv goes to NHWC with its transposes at the boundary, neg(neg(x)) folds away, and the conv
// takes relu and exp as its epilogue; a GPU target keeps NCHW (its conv_layout).
// CHECK-LABEL: func.func @conv_epilogue
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//   CHECK-DAG:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>}
//   CHECK-DAG:   %[[WT:.+]] = "versa.transpose"(%[[W]]) {perm = array<i64: 2, 3, 1, 0>}
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     %[[C:.+]] = "versa.conv2d"(%[[XT]], %[[WT]]) {layout = "NHWC"}
//  CHECK-NEXT:     %[[R:.+]] = "versa.relu"(%[[C]])
//  CHECK-NEXT:     %[[E:.+]] = "versa.exp"(%[[R]])
//  CHECK-NEXT:     "versa.yield"(%[[E]])
//  CHECK-NEXT:   }) {kind = "epilogue"}
//   CHECK-NOT:   versa.neg
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[F]]) {perm = array<i64: 0, 3, 1, 2>}
//       CHECK:   return %[[Y]]

// GPU-LABEL: func.func @conv_epilogue
//   GPU-NOT:   versa.transpose
//       GPU:   "versa.fused"() ({
//  GPU-NEXT:     "versa.conv2d"(%arg0, %arg1) :
//  GPU-NEXT:     "versa.relu"
//  GPU-NEXT:     "versa.exp"
//   GPU-NOT:   versa.neg

// UNKNOWN: error: 'versa-optimize' unknown target 'nope'
func.func @conv_epilogue(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %n = "versa.neg"(%y) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %a = "versa.neg"(%n) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = "versa.relu"(%a) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %e = "versa.exp"(%r) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %e : tensor<1x4x6x6xf32>
}
