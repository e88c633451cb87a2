// The checked-in IRDL form of the dialect loads into an upstream mlir-opt, which then parses
// and prints versa ops as versa-opt does. Only the structure travels with IRDL: the Python
// verifiers and the traits (Pure, versa.yield's IsTerminator) do not, so versa.fused regions
// do not verify there.
// RUN: %upstream-opt --irdl-file=%versa_irdl %s | FileCheck %s
// RUN: versa-opt --emit-irdl | diff - %versa_irdl

// CHECK-LABEL: func.func @irdl_ops
//       CHECK:   "versa.conv2d"(%{{.+}}, %{{.+}}) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>}
//       CHECK:   "versa.relu"
//       CHECK:   "versa.reduce_mean"(%{{.+}}) {axes = array<i64: 1, 2>, keepdims = true}
//       CHECK:   "versa.concat"(%{{.+}}, %{{.+}}) {axis = 3 : i64}
//       CHECK:   "versa.constant"() {value = dense<1.000000e+00> : tensor<4xf32>}
func.func @irdl_ops(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x1x1x8xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  %1 = "versa.relu"(%0) : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %2 = "versa.reduce_mean"(%1) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x3x3x4xf32>) -> tensor<1x1x1x4xf32>
  %3 = "versa.concat"(%2, %2) {axis = 3 : i64} : (tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x1x1x8xf32>
  %4 = "versa.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return %3 : tensor<1x1x1x8xf32>
}
