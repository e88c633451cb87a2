// RUN: versa-opt %s --split-input-file --versa-fuse | FileCheck %s

// CHECK-LABEL: func.func @fuse_add_into_relu
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//       CHECK:     %[[S:.+]] = "versa.add"(%[[A]], %[[B]])
//       CHECK:     %[[R:.+]] = "versa.relu"(%[[S]])
//       CHECK:     "versa.yield"(%[[R]])
//       CHECK:   }) {kind = "elementwise"} : () -> tensor<4x8xf32>
//       CHECK:   return %[[F]]
func.func @fuse_add_into_relu(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "versa.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A chain of four ops with two external inputs becomes one group.
// CHECK-LABEL: func.func @fuse_long_chain
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.tanh"
//  CHECK-NEXT:     "versa.neg"
//  CHECK-NEXT:     "versa.yield"
//   CHECK-NOT:   "versa.fused"
func.func @fuse_long_chain(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %0 = "versa.mul"(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %1 = "versa.add"(%0, %a) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %2 = "versa.tanh"(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = "versa.neg"(%2) : (tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// A producer with two users is not fused: fusing would duplicate its work.
// CHECK-LABEL: func.func @negative_fuse_multi_use_producer
//       CHECK:   %[[E:.+]] = "versa.exp"
//   CHECK-NOT:   "versa.fused"
//       CHECK:   "versa.relu"(%[[E]])
//       CHECK:   "versa.neg"(%[[E]])
func.func @negative_fuse_multi_use_producer(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "versa.exp"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.relu"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "versa.neg"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A producer of a smaller (broadcast) shape is not fused into its consumer: the group would
// recompute it at every point of the larger iteration space.
// CHECK-LABEL: func.func @negative_fuse_broadcast_producer
//       CHECK:   %[[E:.+]] = "versa.exp"(%{{.+}}) : (tensor<8xf32>) -> tensor<8xf32>
//   CHECK-NOT:   "versa.fused"
//       CHECK:   "versa.add"(%{{.+}}, %[[E]])
func.func @negative_fuse_broadcast_producer(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.exp"(%b) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.add"(%a, %0) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Non-elementwise ops are not fused in this kind of group.
// CHECK-LABEL: func.func @negative_fuse_matmul
//   CHECK-NOT:   "versa.fused"
func.func @negative_fuse_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = "versa.relu"(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}

// -----

// Two independent chains give two groups.
// CHECK-LABEL: func.func @two_groups
//       CHECK:   "versa.fused"
//       CHECK:   "versa.transpose"
//       CHECK:   "versa.fused"
func.func @two_groups(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "versa.exp"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "versa.relu"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "versa.transpose"(%1) {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = "versa.sqrt"(%2) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = "versa.abs"(%3) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}
