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
