// versa-fuse's remarks: why a plausible fusion was declined (missed), and what it fused (passed),
// at the op's line. Fusions that are never made by design (a contraction's operands) say nothing.
// RUN: versa-opt %s --versa-fuse --remarks-filter=versa-fuse -o /dev/null 2>&1 | FileCheck %s
// RUN: versa-opt %s --versa-fuse=max-ops=2 --remarks-filter-missed=fuse -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LIMIT
// RUN: versa-opt %s --versa-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// QUIET-NOT: remark

// An expensive producer read twice is stored once, not recomputed in each user's nest.
// CHECK: versa-fuse-remarks.mlir:[[# @LINE + 3]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the producer has other users and is not cheap to recompute: it is computed once and stored", producer="versa.exp", consumer="versa.relu", producer_at="line [[# @LINE + 2]]:8", users=2
func.func @shared_exp(%a: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = "versa.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "versa.neg"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// The epilogue is fused; the reduction after it is a second anchor, so it starts its own group.
// With max-ops=2 the matmul and relu fill the group first.
// CHECK: versa-fuse-remarks.mlir:[[# @LINE + 5]]:8: remark: [Passed] versa-fuse | Category:fusion | Reason="2 ops fused (epilogue)", ops="matmul+relu"
// CHECK: versa-fuse-remarks.mlir:[[# @LINE + 5]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="both groups have an anchor, and a group runs one anchor's loops", producer="versa.relu", consumer="versa.reduce_sum", producer_at="line [[# @LINE + 4]]:8", anchors="versa.matmul and versa.reduce_sum"
// LIMIT: versa-fuse-remarks.mlir:[[# @LINE + 4]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the merged group would hold more than max-ops ops", producer="versa.relu", consumer="versa.reduce_sum", producer_at="line [[# @LINE + 3]]:8", max_ops=2
func.func @two_anchors(%a: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "versa.reduce_sum"(%1) {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// An expensive op of a smaller (broadcast) shape would be recomputed at every point.
// CHECK: versa-fuse-remarks.mlir:[[# @LINE + 3]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the producer is not cheap and has a smaller shape than the consumer's loop nest: it would be recomputed at every point", producer="versa.exp", consumer="versa.add", producer_at="line [[# @LINE + 2]]:8", producer_shape="8", nest_shape="4x8"
func.func @broadcast_exp(%a: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.exp"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "versa.add"(%0, %b) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// An epilogue must have the matmul's shape; a contraction's operand producer says nothing.
// CHECK-NOT: producer="versa.relu", producer_at="line [[# @LINE + 3]]
// CHECK: versa-fuse-remarks.mlir:[[# @LINE + 4]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the consumer's shape differs from the anchor's result: another loop nest", producer="versa.matmul", consumer="versa.add", producer_at="line [[# @LINE + 3]]:8", anchor_shape="1x8", consumer_shape="4x8"
func.func @matmul_broadcast(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = "versa.relu"(%x) : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %0 = "versa.matmul"(%a, %w) : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = "versa.add"(%0, %b) : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
