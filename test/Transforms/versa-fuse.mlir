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

// A matmul with its bias, activation and residual add: one "epilogue" group.
// CHECK-LABEL: func.func @epilogue_matmul_bias_relu_residual
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.matmul"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.relu"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "epilogue"}
//   CHECK-NOT:   "versa.fused"
func.func @epilogue_matmul_bias_relu_residual(%a: tensor<4x8xf32>, %w: tensor<8x2xf32>, %bias: tensor<2xf32>, %r: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = "versa.add"(%0, %bias) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %2 = "versa.relu"(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %3 = "versa.add"(%2, %r) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}

// -----

// conv2d + bias + relu; the relu's other user keeps the matmul-like op out of a second group.
// CHECK-LABEL: func.func @epilogue_conv_bias_relu
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.conv2d"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.relu"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "epilogue"}
func.func @epilogue_conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = "versa.add"(%0, %b) : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %2 = "versa.relu"(%1) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// A contraction's producers stay out: the contraction reads each operand element many times.
// CHECK-LABEL: func.func @negative_epilogue_producer
//       CHECK:   "versa.exp"
//   CHECK-NOT:   "versa.fused"
func.func @negative_epilogue_producer(%a: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = "versa.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.matmul"(%0, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}

// -----

// A matmul with two users is expensive: it is computed once, and neither user joins it.
// CHECK-LABEL: func.func @negative_epilogue_multi_use
//       CHECK:   %[[M:.+]] = "versa.matmul"
//   CHECK-NOT:   "versa.fused"
//       CHECK:   "versa.relu"(%[[M]])
//       CHECK:   "versa.tanh"(%[[M]])
func.func @negative_epilogue_multi_use(%a: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = "versa.matmul"(%a, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = "versa.relu"(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %2 = "versa.tanh"(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A shape change stops fusion: the reshape between matmul and relu ends the group.
// CHECK-LABEL: func.func @negative_epilogue_reshape
//   CHECK-NOT:   "versa.fused"
func.func @negative_epilogue_reshape(%a: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<8xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = "versa.reshape"(%0) : (tensor<4x2xf32>) -> tensor<8xf32>
  %2 = "versa.relu"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// A reduction with the elementwise ops feeding it: sum(x * x) in one reducing loop nest.
// CHECK-LABEL: func.func @reduction_with_producers
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.reduce_sum"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "reduction"}
//       CHECK:   "versa.sqrt"
func.func @reduction_with_producers(%x: tensor<16x32xf32>) -> tensor<16xf32> {
  %0 = "versa.mul"(%x, %x) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %1 = "versa.reduce_sum"(%0) {axes = array<i64: 1>} : (tensor<16x32xf32>) -> tensor<16xf32>
  %2 = "versa.sqrt"(%1) : (tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// batch_norm at inference with the residual add before it and the relu after it.
// CHECK-LABEL: func.func @reduction_batch_norm_relu
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.batch_norm"
//  CHECK-NEXT:     "versa.relu"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "reduction"}
func.func @reduction_batch_norm_relu(%x: tensor<2x4x8x8xf32>, %r: tensor<2x4x8x8xf32>, %p: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %0 = "versa.add"(%x, %r) : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %1 = "versa.batch_norm"(%0, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %2 = "versa.relu"(%1) : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %2 : tensor<2x4x8x8xf32>
}

// -----

// A cheap producer with two fusible users is duplicated into both groups; an expensive one
// (exp, in @negative_fuse_multi_use_producer) is not.
// CHECK-LABEL: func.func @duplicate_cheap_producer
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.exp"
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.tanh"
func.func @duplicate_cheap_producer(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = "versa.mul"(%a, %a) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.exp"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "versa.tanh"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A cheap broadcast producer is recomputed in the larger nest.
// CHECK-LABEL: func.func @broadcast_cheap_producer
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.mul"{{.*}}tensor<8xf32>
//  CHECK-NEXT:     "versa.add"{{.*}}tensor<4x8xf32>
func.func @broadcast_cheap_producer(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.mul"(%b, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.add"(%a, %0) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// `max-ops` bounds a group: a chain of four ops with max-ops=2 gives two groups.
// RUN: versa-opt %s --split-input-file --versa-fuse="max-ops=2" | FileCheck %s --check-prefix=MAX
// MAX-LABEL: func.func @max_ops
//       MAX:   "versa.fused"
//       MAX:   "versa.fused"
//   MAX-NOT:   "versa.fused"
func.func @max_ops(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "versa.exp"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.tanh"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "versa.exp"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = "versa.tanh"(%2) : (tensor<8xf32>) -> tensor<8xf32>
  return %3 : tensor<8xf32>
}

// -----

// Two independent chains give two groups.
// CHECK-LABEL: func.func @two_groups
//   MAX-LABEL: func.func @two_groups
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

// -----

// SiLU after a convolution (x * sigmoid(x), x = conv + bias): the bias add is copied for its
// two users, both land in one group, and the convolution joins it as the anchor (rule 2, second
// form). The result feeds a mean and a scale (squeeze-excite): it is read twice, so it is stored
// once, and the sigmoid stays in the epilogue instead of being stored on its own.
// CHECK-LABEL: func.func @silu_epilogue_read_twice
//       CHECK:   %[[Y:.+]] = "versa.fused"() ({
//       CHECK:     %[[C:.+]] = "versa.conv2d"
//   CHECK-DAG:     %[[X1:.+]] = "versa.add"(%[[C]],
//   CHECK-DAG:     %[[X2:.+]] = "versa.add"(%[[C]],
//       CHECK:     %[[S:.+]] = "versa.sigmoid"
//       CHECK:     %[[M:.+]] = "versa.mul"
//       CHECK:     "versa.yield"(%[[M]])
//       CHECK:   }) {kind = "epilogue"}
//   CHECK-NOT:   "versa.sigmoid"
//       CHECK:   %[[MEAN:.+]] = "versa.reduce_mean"(%[[Y]])
//       CHECK:   "versa.mul"(%[[Y]], %[[MEAN]])
func.func @silu_epilogue_read_twice(%x: tensor<1x8x8x4xf32>, %w: tensor<1x1x4x16xf32>, %b: tensor<16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<1x1x4x16xf32>) -> tensor<1x8x8x16xf32>
  %1 = "versa.add"(%0, %b) : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %2 = "versa.sigmoid"(%1) : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %3 = "versa.mul"(%1, %2) : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %4 = "versa.reduce_mean"(%3) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x8x8x16xf32>) -> tensor<1x1x1x16xf32>
  %5 = "versa.mul"(%3, %4) : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
  return %5 : tensor<1x8x8x16xf32>
}
