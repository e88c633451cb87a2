// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// Identical ops (operands, attributes, types) merge; different attributes keep both.
// CHECK-LABEL: func.func @cse_same_attributes_only
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[E:.+]] = "versa.exp"(%[[X]])
//   CHECK-NOT:   "versa.exp"
//       CHECK:   %[[C0:.+]] = "versa.clamp"(%[[X]]) {min = 0.000000e+00 : f32}
//       CHECK:   %[[C1:.+]] = "versa.clamp"(%[[X]]) {min = 1.000000e+00 : f32}
//       CHECK:   %[[T:.+]] = "versa.gelu"(%[[X]]) {approximate = "tanh"}
//       CHECK:   %[[G:.+]] = "versa.gelu"(%[[X]])
//       CHECK:   return %[[E]], %[[E]], %[[C0]], %[[C1]], %[[T]], %[[G]]
func.func @cse_same_attributes_only(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.clamp"(%x) {min = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "versa.clamp"(%x) {min = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "versa.gelu"(%x) {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "versa.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Equal constants merge; a constant with another value stays.
// CHECK-LABEL: func.func @cse_constants
//       CHECK:   %[[A:.+]] = "versa.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
//       CHECK:   %[[B:.+]] = "versa.constant"() {value = dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf32>}
//   CHECK-NOT:   "versa.constant"
//       CHECK:   return %[[A]], %[[A]], %[[B]]
func.func @cse_constants() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %2 = "versa.constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Inside a fused region too.
// CHECK-LABEL: func.func @cse_inside_fused
//       CHECK:   "versa.fused"() ({
//       CHECK:     %[[E:.+]] = "versa.exp"
//   CHECK-NOT:     "versa.exp"
//       CHECK:     %[[S:.+]] = "versa.add"(%[[E]], %[[E]])
//       CHECK:     "versa.yield"(%[[S]])
func.func @cse_inside_fused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "versa.add"(%1, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%3) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A region op equal to one outside merges with it; a group left yielding only outer values
// is those values.
// CHECK-LABEL: func.func @cse_into_enclosing_block
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[E:.+]] = "versa.exp"(%[[X]])
//   CHECK-NOT:   "versa.fused"
//       CHECK:   return %[[E]], %[[E]]
func.func @cse_into_enclosing_block(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = "versa.fused"() ({
    %1 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%1) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %e, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CSE makes x - x visible; the patterns run again and fold it (integers).
// CHECK-LABEL: func.func @cse_then_patterns
//       CHECK:   %[[Z:.+]] = "versa.constant"() {value = dense<0> : tensor<4xi32>}
//   CHECK-NOT:   "versa.sub"
//       CHECK:   return %[[Z]]
func.func @cse_then_patterns(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "versa.add"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "versa.add"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "versa.sub"(%0, %1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// Operand order matters for ops that are not commutative.
// CHECK-LABEL: func.func @negative_cse_operand_order
//       CHECK:   "versa.sub"
//       CHECK:   "versa.sub"
func.func @negative_cse_operand_order(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.sub"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.sub"(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Two groups with equal regions merge like any pure op.
// CHECK-LABEL: func.func @cse_equal_fused_groups
//       CHECK:   %[[F:.+]] = "versa.fused"
//   CHECK-NOT:   "versa.fused"
//       CHECK:   return %[[F]], %[[F]]
func.func @cse_equal_fused_groups(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "versa.fused"() ({
    %1 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "versa.relu"(%1) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%2) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  %3 = "versa.fused"() ({
    %4 = "versa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "versa.relu"(%4) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%5) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0, %3 : tensor<4xf32>, tensor<4xf32>
}
