// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// CHECK-LABEL: func.func @double_negation
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//   CHECK-NOT:   "versa.neg"
//       CHECK:   return %[[X]]
func.func @double_negation(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_ignores_sign
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[A:.+]] = "versa.abs"(%[[X]])
//   CHECK-NOT:   "versa.abs"
//   CHECK-NOT:   "versa.neg"
//       CHECK:   return %[[A]], %[[A]]
func.func @abs_ignores_sign(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.abs"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "versa.abs"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @idempotent
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xi1>, %[[I:.+]]: tensor<4xi32>)
//   CHECK-NOT:   "versa.
//       CHECK:   return %[[X]], %[[X]], %[[B]], %[[I]], %[[B]], %[[X]]
func.func @idempotent(%x: tensor<4xf32>, %b: tensor<4xi1>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  %0 = "versa.max"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.min"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.and"(%b, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = "versa.or"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = "versa.not"(%b) : (tensor<4xi1>) -> tensor<4xi1>
  %5 = "versa.not"(%4) : (tensor<4xi1>) -> tensor<4xi1>
  %6 = "versa.select"(%b, %x, %x) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// select(c, x, x) that broadcasts x to a larger shape changes the type: it stays.
// CHECK-LABEL: func.func @negative_select_broadcasts
//       CHECK:   "versa.select"
func.func @negative_select_broadcasts(%c: tensor<2x4xi1>, %x: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = "versa.select"(%c, %x, %x) : (tensor<2x4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// On integers x - x and x * 0 are 0.
// CHECK-LABEL: func.func @integer_zeros
//       CHECK:   %[[Z:.+]] = "versa.constant"() {value = dense<0> : tensor<4xi32>}
//   CHECK-NOT:   "versa.sub"
//   CHECK-NOT:   "versa.mul"
//       CHECK:   return %[[Z]], %[[Z]]
func.func @integer_zeros(%i: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %z = "versa.constant"() {value = dense<0> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "versa.sub"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "versa.mul"(%z, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// A result with a `?` dim keeps its x - x and x * 0: a constant's type is static, and a zero of
// the call's size would cost what the op does. The verifier runs after the pass (no constant of
// a dynamic type); a static result beside them still folds.
// CHECK-LABEL: func.func @negative_dynamic_integer_zeros
//  CHECK-SAME:   (%[[I:.+]]: tensor<?xi32>, %[[J:.+]]: tensor<?x4xi32>, %[[K:.+]]: tensor<4xi32>)
//       CHECK:   %[[Z4:.+]] = "versa.constant"() {value = dense<0> : tensor<4xi32>}
//       CHECK:   %[[S:.+]] = "versa.sub"(%[[I]], %[[I]]) : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
//       CHECK:   %[[M:.+]] = "versa.mul"(%[[J]], %[[Z4]]) : (tensor<?x4xi32>, tensor<4xi32>) -> tensor<?x4xi32>
//   CHECK-NOT:   "versa.sub"
//       CHECK:   return %[[S]], %[[M]], %[[Z4]]
func.func @negative_dynamic_integer_zeros(%i: tensor<?xi32>, %j: tensor<?x4xi32>, %k: tensor<4xi32>)
    -> (tensor<?xi32>, tensor<?x4xi32>, tensor<4xi32>) {
  %z = "versa.constant"() {value = dense<0> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "versa.sub"(%i, %i) : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  %1 = "versa.mul"(%j, %z) : (tensor<?x4xi32>, tensor<4xi32>) -> tensor<?x4xi32>
  %2 = "versa.sub"(%k, %k) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<?xi32>, tensor<?x4xi32>, tensor<4xi32>
}

// -----

// On floats x - x is NaN for x = inf or NaN, and x * 0 is NaN or -0: neither folds.
// CHECK-LABEL: func.func @negative_float_self_subtraction_and_times_zero
//       CHECK:   "versa.sub"
//       CHECK:   "versa.mul"
func.func @negative_float_self_subtraction_and_times_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = "versa.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "versa.sub"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.mul"(%x, %z) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// exp(log x) is NaN for x < 0 and log(exp x) is inf for large x: neither folds.
// CHECK-LABEL: func.func @negative_exp_log
//       CHECK:   "versa.log"
//       CHECK:   "versa.exp"
//       CHECK:   "versa.exp"
//       CHECK:   "versa.log"
func.func @negative_exp_log(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "versa.log"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Data movement that moves nothing.
// CHECK-LABEL: func.func @no_op_movement
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x1x4xf32>)
//   CHECK-NOT:   "versa.
//       CHECK:   return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @no_op_movement(%x: tensor<2x1x4xf32>)
    -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>) {
  %0 = "versa.cast"(%x) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %1 = "versa.broadcast_to"(%x) : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %2 = "versa.slice"(%x) {starts = array<i64: 0, 0, 0>, limits = array<i64: 2, 1, 4>, strides = array<i64: 1, 3, 1>} : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %3 = "versa.pad"(%x) {low = array<i64: 0, 0, 0>, high = array<i64: 0, 0, 0>, value = 1.0 : f32} : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %4 = "versa.concat"(%x) {axis = 1 : i64} : (tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>
}

// -----

// A cast to another type, a real broadcast, a slice that drops or moves elements stay.
// CHECK-LABEL: func.func @negative_movement_that_moves
//       CHECK:   "versa.cast"
//       CHECK:   "versa.broadcast_to"
//       CHECK:   "versa.slice"
//       CHECK:   "versa.slice"
//       CHECK:   "versa.pad"
func.func @negative_movement_that_moves(%x: tensor<4xf32>)
    -> (tensor<4xf16>, tensor<2x4xf32>, tensor<2xf32>, tensor<3xf32>, tensor<5xf32>) {
  %0 = "versa.cast"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  %1 = "versa.broadcast_to"(%x) : (tensor<4xf32>) -> tensor<2x4xf32>
  %2 = "versa.slice"(%x) {starts = array<i64: 0>, limits = array<i64: 4>, strides = array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>
  %3 = "versa.slice"(%x) {starts = array<i64: 1>, limits = array<i64: 4>} : (tensor<4xf32>) -> tensor<3xf32>
  %4 = "versa.pad"(%x) {low = array<i64: 1>, high = array<i64: 0>} : (tensor<4xf32>) -> tensor<5xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<2x4xf32>, tensor<2xf32>, tensor<3xf32>, tensor<5xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_broadcast
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[B:.+]] = "versa.broadcast_to"(%[[X]]) : (tensor<4xf32>) -> tensor<3x2x4xf32>
//       CHECK:   return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<4xf32>) -> tensor<3x2x4xf32> {
  %0 = "versa.broadcast_to"(%x) : (tensor<4xf32>) -> tensor<2x4xf32>
  %1 = "versa.broadcast_to"(%0) : (tensor<2x4xf32>) -> tensor<3x2x4xf32>
  return %1 : tensor<3x2x4xf32>
}

// -----

// Reducing over size-1 axes reduces nothing: a reshape (dropped axes) or nothing (keepdims).
// CHECK-LABEL: func.func @reduce_unit_axes
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x1x4x1xf32>)
//       CHECK:   %[[R:.+]] = "versa.reshape"(%[[X]]) : (tensor<2x1x4x1xf32>) -> tensor<2x4xf32>
//   CHECK-NOT:   "versa.reduce
//       CHECK:   return %[[R]], %[[X]], %[[R]]
func.func @reduce_unit_axes(%x: tensor<2x1x4x1xf32>) -> (tensor<2x4xf32>, tensor<2x1x4x1xf32>, tensor<2x4xf32>) {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1, -1>} : (tensor<2x1x4x1xf32>) -> tensor<2x4xf32>
  %1 = "versa.reduce_max"(%x) {axes = array<i64: 3>, keepdims = true} : (tensor<2x1x4x1xf32>) -> tensor<2x1x4x1xf32>
  %2 = "versa.reduce_mean"(%x) {axes = array<i64: 1, 3>} : (tensor<2x1x4x1xf32>) -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x1x4x1xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_reduce_real_axis
//       CHECK:   "versa.reduce_sum"
func.func @negative_reduce_real_axis(%x: tensor<2x1x4xf32>) -> tensor<2xf32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1, 2>} : (tensor<2x1x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Overlapping intervals intersect; a clamp without bounds is x.
// CHECK-LABEL: func.func @clamps
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[C:.+]] = "versa.clamp"(%[[X]]) {max = 2.000000e+00 : f32, min = 0.000000e+00 : f32}
//   CHECK-NOT:   "versa.clamp"
//       CHECK:   return %[[C]], %[[X]]
func.func @clamps(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.clamp"(%x) {min = -1.0 : f32, max = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.clamp"(%0) {min = 0.0 : f32, max = 3.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.clamp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Disjoint intervals: the result is the outer bound everywhere (NaN aside), not one clamp.
// CHECK-LABEL: func.func @negative_disjoint_clamps
//       CHECK:   "versa.clamp"
//       CHECK:   "versa.clamp"
func.func @negative_disjoint_clamps(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.clamp"(%x) {min = 0.0 : f32, max = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.clamp"(%0) {min = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
