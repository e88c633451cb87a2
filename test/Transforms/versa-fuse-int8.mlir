// RUN: versa-opt %s --split-input-file --versa-fuse | FileCheck %s

// An integer contraction anchors its epilogue: the i32 bias and the per-channel requantize
// (clamped at its zero point: a ReLU) run in the qconv2d's group, which yields the u8 value.
// CHECK-LABEL: func.func @conv_requantize
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.qconv2d"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     %[[Q:.+]] = "versa.requantize"
//  CHECK-NEXT:     "versa.yield"(%[[Q]]) : (tensor<1x4x4x16xui8>) -> ()
//  CHECK-NEXT:   }) {kind = "epilogue"} : () -> tensor<1x4x4x16xui8>
//  CHECK-NEXT:   return %[[F]]
func.func @conv_requantize(%x: tensor<1x4x4x8xui8>) -> tensor<1x4x4x16xui8> {
  %w = "versa.constant"() {value = dense<1> : tensor<1x1x8x16xi8>} : () -> tensor<1x1x8x16xi8>
  %za = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %c = "versa.qconv2d"(%x, %w, %za, %zb) {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xui8>, tensor<1x1x8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x16xi32>
  %b = "versa.constant"() {value = dense<5> : tensor<1x1x1x16xi32>} : () -> tensor<1x1x1x16xi32>
  %a = "versa.add"(%c, %b) : (tensor<1x4x4x16xi32>, tensor<1x1x1x16xi32>) -> tensor<1x4x4x16xi32>
  %s = "versa.constant"() {value = dense<0.01> : tensor<16xf32>} : () -> tensor<16xf32>
  %z = "versa.constant"() {value = dense<0> : tensor<16xui8>} : () -> tensor<16xui8>
  %q = "versa.requantize"(%a, %s, %z) {axis = 3 : i64, min = 0 : i64} : (tensor<1x4x4x16xi32>, tensor<16xf32>, tensor<16xui8>) -> tensor<1x4x4x16xui8>
  return %q : tensor<1x4x4x16xui8>
}

// -----

// An INT8 residual block's end: the first conv's group stops at its u8 requantize (its
// dequantize, whose only user is the residual add, widens 1 byte to 4: rule 5), and the second
// conv's group computes that dequantize, its float epilogue, the add, ReLU and the quantize,
// the contraction first so that the rest is one run after it (lower_fused).
// CHECK-LABEL: func.func @residual
//       CHECK:   %[[R:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.qconv2d"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     %[[Q:.+]] = "versa.requantize"
//  CHECK-NEXT:     "versa.yield"(%[[Q]]) : (tensor<1x4x4x16xui8>) -> ()
//  CHECK-NEXT:   }) {kind = "epilogue"} : () -> tensor<1x4x4x16xui8>
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     "versa.qconv2d"
//  CHECK-NEXT:     "versa.dequantize"(%[[R]],
//  CHECK-NEXT:     "versa.cast"
//  CHECK-NEXT:     "versa.mul"
//  CHECK-NEXT:     "versa.add"
//  CHECK-NEXT:     "versa.relu"
//  CHECK-NEXT:     %[[O:.+]] = "versa.quantize"
//  CHECK-NEXT:     "versa.yield"(%[[O]]) : (tensor<1x4x4x16xui8>) -> ()
//  CHECK-NEXT:   }) {kind = "epilogue"} : () -> tensor<1x4x4x16xui8>
//   CHECK-NOT:   "versa.dequantize"
func.func @residual(%x: tensor<1x4x4x8xui8>, %y: tensor<1x4x4x8xui8>) -> tensor<1x4x4x16xui8> {
  %w = "versa.constant"() {value = dense<1> : tensor<1x1x8x16xi8>} : () -> tensor<1x1x8x16xi8>
  %za = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %c = "versa.qconv2d"(%x, %w, %za, %zb) {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xui8>, tensor<1x1x8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x16xi32>
  %b = "versa.constant"() {value = dense<5> : tensor<1x1x1x16xi32>} : () -> tensor<1x1x1x16xi32>
  %a = "versa.add"(%c, %b) : (tensor<1x4x4x16xi32>, tensor<1x1x1x16xi32>) -> tensor<1x4x4x16xi32>
  %s = "versa.constant"() {value = dense<0.01> : tensor<16xf32>} : () -> tensor<16xf32>
  %z = "versa.constant"() {value = dense<0> : tensor<16xui8>} : () -> tensor<16xui8>
  %q = "versa.requantize"(%a, %s, %z) {axis = 3 : i64} : (tensor<1x4x4x16xi32>, tensor<16xf32>, tensor<16xui8>) -> tensor<1x4x4x16xui8>
  %rs = "versa.constant"() {value = dense<0.02> : tensor<f32>} : () -> tensor<f32>
  %rz = "versa.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "versa.dequantize"(%q, %rs, %rz) : (tensor<1x4x4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x16xf32>
  %c2 = "versa.qconv2d"(%y, %w, %za, %zb) {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xui8>, tensor<1x1x8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x16xi32>
  %f = "versa.cast"(%c2) : (tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xf32>
  %sw = "versa.constant"() {value = dense<0.001> : tensor<1x1x1x16xf32>} : () -> tensor<1x1x1x16xf32>
  %m = "versa.mul"(%f, %sw) : (tensor<1x4x4x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x4x4x16xf32>
  %sum = "versa.add"(%m, %d) : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %r = "versa.relu"(%sum) : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %one = "versa.constant"() {value = dense<0.05> : tensor<f32>} : () -> tensor<f32>
  %o = "versa.quantize"(%r, %one, %rz) : (tensor<1x4x4x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x16xui8>
  return %o : tensor<1x4x4x16xui8>
}
