// versa-fuse on tensors with dynamic dims (`?`): groups form as they do on static shapes (a `?`
// never stretches, so a value whose dim is `?` has one element per point of the nest along it);
// an expensive producer that a `?` of the nest may broadcast (a 1, or no dim, facing the `?`) is
// refused with the DYNAMIC remark, a cheap one fuses there.
// RUN: versa-opt %s --split-input-file --versa-fuse | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-fuse --remarks-filter-missed=versa-fuse -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

// RMSNorm after a residual add (a Llama layer's): the add, read three times, is copied into
// each reader; mean(h * h) is one reducing group; eps + rsqrt, of shape ?x?x1, stays out of the
// [?, ?, 64] nest (a static 1 against a static 64: recomputed per point, as in a static compile).
// CHECK-LABEL: func.func @rms_norm
//       CHECK:   %[[M:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     %[[H0:.+]] = "versa.add"
//  CHECK-NEXT:     %[[H1:.+]] = "versa.add"
//  CHECK-NEXT:     "versa.mul"(%[[H1]], %[[H0]])
//  CHECK-NEXT:     "versa.reduce_mean"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "reduction"} : () -> tensor<?x?x1xf32>
//       CHECK:   %[[S:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.add"(%[[M]]
//  CHECK-NEXT:     "versa.rsqrt"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x?x1xf32>
//       CHECK:   %[[Y:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.mul"(%{{.+}}, %[[S]])
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x?x64xf32>
//  CHECK-NEXT:   return %[[Y]]
// REMARK: versa-fuse-dynamic.mlir:[[# @LINE + 9]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the producer is not cheap and has a smaller shape than the consumer's loop nest: it would be recomputed at every point", producer="versa.rsqrt", consumer="versa.mul", producer_at="line [[# @LINE + 8]]:8", producer_shape="?x?x1", nest_shape="?x?x64"
func.func @rms_norm(%x: tensor<?x?x64xf32>, %r: tensor<?x?x64xf32>, %w: tensor<64xf32>) -> tensor<?x?x64xf32> {
  %eps = "versa.constant"() {value = dense<1.0e-06> : tensor<f32>} : () -> tensor<f32>
  %h = "versa.add"(%x, %r) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %sq = "versa.mul"(%h, %h) : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %m = "versa.reduce_mean"(%sq) {axes = array<i64: 2>, keepdims = true}
      : (tensor<?x?x64xf32>) -> tensor<?x?x1xf32>
  %a = "versa.add"(%m, %eps) : (tensor<?x?x1xf32>, tensor<f32>) -> tensor<?x?x1xf32>
  %s = "versa.rsqrt"(%a) : (tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
  %n = "versa.mul"(%h, %s) : (tensor<?x?x64xf32>, tensor<?x?x1xf32>) -> tensor<?x?x64xf32>
  %y = "versa.mul"(%n, %w) : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// -----

// SwiGLU: silu(gate) * up, then the residual add: one group over the dynamic nest.
// CHECK-LABEL: func.func @swiglu_residual
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.sigmoid"
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x?x128xf32>
//  CHECK-NEXT:   return %[[F]]
func.func @swiglu_residual(%g: tensor<?x?x128xf32>, %u: tensor<?x?x128xf32>, %r: tensor<?x?x128xf32>)
    -> tensor<?x?x128xf32> {
  %s = "versa.sigmoid"(%g) : (tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %t = "versa.mul"(%g, %s) : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %o = "versa.mul"(%t, %u) : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %y = "versa.add"(%o, %r) : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

// -----

// A matmul with dynamic rows takes its epilogue: bias, GELU, residual.
// CHECK-LABEL: func.func @epilogue
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.matmul"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.gelu"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "epilogue"} : () -> tensor<?x32xf32>
//  CHECK-NEXT:   return %[[F]]
func.func @epilogue(%a: tensor<?x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>, %r: tensor<?x32xf32>)
    -> tensor<?x32xf32> {
  %0 = "versa.matmul"(%a, %w) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %1 = "versa.add"(%0, %b) : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  %2 = "versa.gelu"(%1) {approximate = "tanh"} : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %3 = "versa.add"(%2, %r) : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  return %3 : tensor<?x32xf32>
}

// -----

// An expensive producer of shape 1x8 under a [?, 8] nest: recomputed per row at every call where
// the `?` is above 1, so it is stored (DYNAMIC); the cheap neg of the same shape fuses.
// CHECK-LABEL: func.func @one_against_dynamic
//       CHECK:   %[[E:.+]] = "versa.exp"
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.add"(%[[E]]
//  CHECK-NEXT:     "versa.relu"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x8xf32>
//       CHECK:   "versa.fused"() ({
//  CHECK-NEXT:     "versa.neg"
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x8xf32>
// REMARK: versa-fuse-dynamic.mlir:[[# @LINE + 4]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the producer (or its group) is not cheap and has a size-1 dim, or none, where the consumer's loop nest has a dynamic one: at every call where that size is above 1 it would be recomputed at every point", producer="versa.exp", consumer="versa.add", producer_at="line [[# @LINE + 3]]:8", producer_shape="1x8", nest_shape="?x8"
// REMARK-NOT: producer="versa.neg"
func.func @one_against_dynamic(%a: tensor<1x8xf32>, %x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = "versa.exp"(%a) : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = "versa.add"(%0, %x) : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = "versa.relu"(%1) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = "versa.neg"(%a) : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %4 = "versa.mul"(%3, %x) : (tensor<1x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %2, %4 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// A missing leading dim faces a `?` too: tanh of [?] under a [?, ?] nest is stored (DYNAMIC).
// CHECK-LABEL: func.func @rank_against_dynamic
//       CHECK:   %[[T:.+]] = "versa.tanh"
//   CHECK-NOT:   "versa.fused"
//       CHECK:   "versa.add"(%[[T]]
// REMARK: versa-fuse-dynamic.mlir:[[# @LINE + 3]]:8: remark: [Missed] versa-fuse | Category:fusion | Reason="the producer (or its group) is not cheap and has a size-1 dim, or none, where the consumer's loop nest has a dynamic one: at every call where that size is above 1 it would be recomputed at every point", producer="versa.tanh", consumer="versa.add", producer_at="line [[# @LINE + 2]]:8", producer_shape="?", nest_shape="?x?"
func.func @rank_against_dynamic(%a: tensor<?xf32>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "versa.tanh"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = "versa.add"(%0, %x) : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// A `?` facing a static size is that size (it never stretches): the expensive exp of [?, 8]
// fuses into a [4, 8] nest, and a [?, 8] one into a [?, 8] nest.
// CHECK-LABEL: func.func @dynamic_is_the_nest_size
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.exp"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<4x8xf32>
//       CHECK:   %[[G:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.exp"
//  CHECK-NEXT:     "versa.sub"
//  CHECK-NEXT:     "versa.yield"
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<?x8xf32>
// REMARK-NOT: remark
func.func @dynamic_is_the_nest_size(%a: tensor<?x8xf32>, %b: tensor<4x8xf32>, %c: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<?x8xf32>) {
  %0 = "versa.exp"(%a) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %1 = "versa.add"(%0, %b) : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "versa.exp"(%c) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = "versa.sub"(%2, %a) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<?x8xf32>
}
