// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// CHECK-LABEL: func.func @transpose_of_transpose
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3x4xf32>)
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   return %[[A]]
func.func @transpose_of_transpose(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "versa.transpose"(%a) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = "versa.transpose"(%0) {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transposes_compose
//       CHECK:   "versa.transpose"(%{{.+}}) {perm = array<i64: 1, 0, 2>}
//   CHECK-NOT:   "versa.transpose"
func.func @transposes_compose(%a: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %0 = "versa.transpose"(%a) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = "versa.transpose"(%0) {perm = array<i64: 2, 1, 0>} : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x6xf32>)
//       CHECK:   %[[R:.+]] = "versa.reshape"(%[[A]]) : (tensor<2x6xf32>) -> tensor<3x4xf32>
//       CHECK:   return %[[R]]
func.func @reshape_of_reshape(%a: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = "versa.reshape"(%a) : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = "versa.reshape"(%0) : (tensor<12xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_round_trip
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x6xf32>)
//   CHECK-NOT:   "versa.reshape"
//       CHECK:   return %[[A]]
func.func @reshape_round_trip(%a: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = "versa.reshape"(%a) : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = "versa.reshape"(%0) : (tensor<12xf32>) -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero_mul_one
//  CHECK-SAME:   (%[[A:.+]]: tensor<4xf32>)
//   CHECK-NOT:   "versa.add"
//   CHECK-NOT:   "versa.mul"
//       CHECK:   return %[[A]]
func.func @add_zero_mul_one(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = "versa.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %o = "versa.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "versa.add"(%z, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.mul"(%0, %o) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Adding a zero that broadcasts x to a larger shape changes the type: it must stay.
// CHECK-LABEL: func.func @negative_add_zero_broadcasts
//       CHECK:   "versa.add"
func.func @negative_add_zero_broadcasts(%a: tensor<4xf32>) -> tensor<2x4xf32> {
  %z = "versa.constant"() {value = dense<0.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %0 = "versa.add"(%a, %z) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// x - 0 folds, 0 - x does not.
// CHECK-LABEL: func.func @sub_zero
//       CHECK:   %[[N:.+]] = "versa.sub"(%{{.+}}, %{{.+}})
//       CHECK:   return %[[N]]
func.func @sub_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = "versa.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "versa.sub"(%a, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.sub"(%z, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_of_relu
//       CHECK:   "versa.relu"
//   CHECK-NOT:   "versa.relu"
func.func @relu_of_relu(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @dead_ops
//   CHECK-NOT:   "versa.exp"
//   CHECK-NOT:   "versa.matmul"
//       CHECK:   return
func.func @dead_ops(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = "versa.exp"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "versa.matmul"(%0, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

// -----

// Constant operands fold through the NumPy semantics.
// CHECK-LABEL: func.func @fold_constants
//       CHECK:   %[[C:.+]] = "versa.constant"() {value = dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>}
//   CHECK-NOT:   "versa.add"
//       CHECK:   return %[[C]]
func.func @fold_constants() -> tensor<2xf32> {
  %a = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "versa.constant"() {value = dense<[2.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "versa.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Splats fold at any size (beyond FOLD_LIMIT): only one element is computed.
// CHECK-LABEL: func.func @fold_large_splats
//       CHECK:   %[[C:.+]] = "versa.constant"() {value = dense<1.41421354> : tensor<1024x1024xf32>}
//   CHECK-NOT:   "versa.
//       CHECK:   return %[[C]]
func.func @fold_large_splats() -> tensor<1024x1024xf32> {
  %s = "versa.constant"() {value = dense<2.0> : tensor<1024xf32>} : () -> tensor<1024xf32>
  %b = "versa.broadcast_to"(%s) : (tensor<1024xf32>) -> tensor<1024x1024xf32>
  %t = "versa.transpose"(%b) {perm = array<i64: 1, 0>} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = "versa.reshape"(%t) : (tensor<1024x1024xf32>) -> tensor<1048576xf32>
  %q = "versa.sqrt"(%r) : (tensor<1048576xf32>) -> tensor<1048576xf32>
  %o = "versa.reshape"(%q) : (tensor<1048576xf32>) -> tensor<1024x1024xf32>
  return %o : tensor<1024x1024xf32>
}

// -----

// Splats of different element types and ops: a comparison, a select, a cast, a concat.
// CHECK-LABEL: func.func @fold_splat_kinds
//   CHECK-DAG:   %[[I:.+]] = "versa.constant"() {value = dense<3> : tensor<512x512xi32>}
//   CHECK-DAG:   %[[C:.+]] = "versa.constant"() {value = dense<2.500000e+00> : tensor<1024x512xf32>}
//   CHECK-NOT:   "versa.select"
//   CHECK-NOT:   "versa.concat"
//       CHECK:   return %[[I]], %[[C]]
func.func @fold_splat_kinds() -> (tensor<512x512xi32>, tensor<1024x512xf32>) {
  %a = "versa.constant"() {value = dense<2.5> : tensor<512x512xf32>} : () -> tensor<512x512xf32>
  %b = "versa.constant"() {value = dense<1.0> : tensor<512x512xf32>} : () -> tensor<512x512xf32>
  %gt = "versa.compare"(%a, %b) {predicate = "gt"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xi1>
  %s = "versa.select"(%gt, %a, %b) : (tensor<512x512xi1>, tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %i = "versa.cast"(%s) : (tensor<512x512xf32>) -> tensor<512x512xi32>
  %j = "versa.add"(%i, %i) : (tensor<512x512xi32>, tensor<512x512xi32>) -> tensor<512x512xi32>
  %k = "versa.sub"(%j, %i) : (tensor<512x512xi32>, tensor<512x512xi32>) -> tensor<512x512xi32>
  %one = "versa.constant"() {value = dense<1> : tensor<512x512xi32>} : () -> tensor<512x512xi32>
  %l = "versa.add"(%k, %one) : (tensor<512x512xi32>, tensor<512x512xi32>) -> tensor<512x512xi32>
  %c = "versa.concat"(%s, %s) {axis = 0 : i64} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<1024x512xf32>
  return %l, %c : tensor<512x512xi32>, tensor<1024x512xf32>
}

// -----

// A dense (non-splat) constant larger than FOLD_LIMIT is not expanded.
// CHECK-LABEL: func.func @negative_fold_large_dense
//       CHECK:   "versa.broadcast_to"
func.func @negative_fold_large_dense() -> tensor<65537x2xf32> {
  %a = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "versa.broadcast_to"(%a) : (tensor<2xf32>) -> tensor<65537x2xf32>
  return %b : tensor<65537x2xf32>
}

// -----

// bf16 has no NumPy type: its constants are left alone, not a pass failure.
// CHECK-LABEL: func.func @negative_fold_bf16
//       CHECK:   "versa.add"
func.func @negative_fold_bf16() -> tensor<2xbf16> {
  %a = "versa.constant"() {value = dense<1.0> : tensor<2xbf16>} : () -> tensor<2xbf16>
  %0 = "versa.add"(%a, %a) : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %0 : tensor<2xbf16>
}

// -----

// What a fold leaves unused disappears: the unscaled weight and the batch-norm parameters.
// CHECK-LABEL: func.func @dead_after_folding
//   CHECK-NOT:   dense<1.000000e+00>
//   CHECK-NOT:   dense<3.000000e+00>
//       CHECK:   return
func.func @dead_after_folding(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<3.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %p) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}
