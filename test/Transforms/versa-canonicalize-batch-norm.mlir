// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// Inference batch norm folds into the conv: W scaled per output channel, one bias add.
// s = gamma / sqrt(var + eps) = [2, 0.5]; W' = W * s; b' = (0 - mean) * s + beta = [-1, 1].
// CHECK-LABEL: func.func @conv_batch_norm_nchw
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x4x4xf32>)
//       CHECK:   %[[W:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}2.000000e+00{{.*}}5.000000e-01{{.*}}> : tensor<2x2x1x1xf32>}
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]])
//       CHECK:   %[[B:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}-1.000000e+00]], {{\[\[}}1.000000e+00]]]]> : tensor<1x2x1x1xf32>}
//       CHECK:   %[[O:.+]] = "versa.add"(%[[Y]], %[[B]])
//   CHECK-NOT:   "versa.batch_norm"
//       CHECK:   return %[[O]]
func.func @conv_batch_norm_nchw(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %gamma = "versa.constant"() {value = dense<[4.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "versa.constant"() {value = dense<[3.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %gamma, %beta, %mean, %var) {epsilon = 1.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// NHWC: the weight's last dim is the output channel; the conv's bias add is folded in.
// b' = (bias - mean) * s + beta = ([3, 4] - [1, 2]) * [2, 0.5] + [1, 2] = [5, 3].
// CHECK-LABEL: func.func @conv_bias_batch_norm_nhwc
//       CHECK:   %[[W:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}2.000000e+00, 5.000000e-01]]]]> : tensor<1x1x1x2xf32>}
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%{{.+}}, %[[W]]) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>}
//       CHECK:   %[[B:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}5.000000e+00, 3.000000e+00]]]]> : tensor<1x1x1x2xf32>}
//       CHECK:   %[[O:.+]] = "versa.add"(%[[Y]], %[[B]])
//   CHECK-NOT:   "versa.add"
//   CHECK-NOT:   "versa.batch_norm"
//       CHECK:   return %[[O]]
func.func @conv_bias_batch_norm_nhwc(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<1x1x1x2xf32>} : () -> tensor<1x1x1x2xf32>
  %bias = "versa.constant"() {value = dense<[3.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %gamma = "versa.constant"() {value = dense<[4.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "versa.constant"() {value = dense<[3.0, 3.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %yb = "versa.add"(%bias, %y) : (tensor<2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = "versa.batch_norm"(%yb, %gamma, %beta, %mean, %var) {epsilon = 1.0 : f32, layout = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %o : tensor<1x2x2x2xf32>
}

// -----

// BatchNorm1d after a linear layer, as the torch frontend spells it: add(mul(sub(y, mean), k), beta).
// B' = B * k; b' = (bias - mean) * k + beta = ([1, 1] - [1, 3]) * [3, 2] + [0, 1] = [0, -3].
// CHECK-LABEL: func.func @matmul_batch_norm_1d
//  CHECK-SAME:   (%[[A:.+]]: tensor<5x3xf32>)
//       CHECK:   %[[W:.+]] = "versa.constant"() {value = dense<{{\[\[}}3.000000e+00, 2.000000e+00]{{.*}}> : tensor<3x2xf32>}
//       CHECK:   %[[Y:.+]] = "versa.matmul"(%[[A]], %[[W]])
//       CHECK:   %[[B:.+]] = "versa.constant"() {value = dense<{{\[\[}}0.000000e+00, -3.000000e+00]]> : tensor<1x2xf32>}
//       CHECK:   %[[O:.+]] = "versa.add"(%[[Y]], %[[B]])
//   CHECK-NOT:   "versa.sub"
//   CHECK-NOT:   "versa.mul"
//       CHECK:   return %[[O]]
func.func @matmul_batch_norm_1d(%a: tensor<5x3xf32>) -> tensor<5x2xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
  %bias = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "versa.constant"() {value = dense<[[1.0, 3.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %k = "versa.constant"() {value = dense<[[3.0, 2.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %beta = "versa.constant"() {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.matmul"(%a, %w) : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
  %yb = "versa.add"(%y, %bias) : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  %c = "versa.sub"(%yb, %mean) : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  %s = "versa.mul"(%k, %c) : (tensor<1x2xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
  %o = "versa.add"(%s, %beta) : (tensor<5x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  return %o : tensor<5x2xf32>
}

// -----

// The weights are an argument: nothing to fold them into.
// CHECK-LABEL: func.func @negative_conv_weights_not_constant
//       CHECK:   "versa.conv2d"
//       CHECK:   "versa.batch_norm"
func.func @negative_conv_weights_not_constant(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %p = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// The running variance is an argument: the scale is not known at compile time.
// CHECK-LABEL: func.func @negative_batch_norm_params_not_constant
//       CHECK:   "versa.conv2d"
//       CHECK:   "versa.batch_norm"
func.func @negative_batch_norm_params_not_constant(%x: tensor<1x2x4x4xf32>, %var: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %var) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// The unscaled conv result is returned too: folding would compute the conv twice.
// CHECK-LABEL: func.func @negative_conv_has_other_users
//       CHECK:   "versa.conv2d"
//   CHECK-NOT:   "versa.conv2d"
//       CHECK:   "versa.batch_norm"
func.func @negative_conv_has_other_users(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// The bias add's result is also returned: it must stay, so the batch norm stays too.
// CHECK-LABEL: func.func @negative_bias_add_has_other_users
//       CHECK:   "versa.add"
//       CHECK:   "versa.batch_norm"
func.func @negative_bias_add_has_other_users(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<2.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "versa.constant"() {value = dense<[[[3.0]], [[4.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %yb = "versa.add"(%y, %b) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%yb, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o, %yb : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A bias that varies along a spatial dim is not per channel: it cannot move past the scale.
// CHECK-LABEL: func.func @negative_bias_not_per_channel
//       CHECK:   "versa.batch_norm"
func.func @negative_bias_not_per_channel(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<2.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "versa.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %yb = "versa.add"(%y, %b) : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%yb, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// An NCHW conv (channels on dim 1) under an NHWC batch norm (channels on dim 3): different dims.
// CHECK-LABEL: func.func @negative_layouts_disagree
//       CHECK:   "versa.batch_norm"
func.func @negative_layouts_disagree(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<2.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %p) {epsilon = 1.0e-5 : f32, layout = "NHWC"} : (tensor<1x2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// A per-column chain after a matmul whose B is an argument stays as it is.
// CHECK-LABEL: func.func @negative_matmul_weights_not_constant
//       CHECK:   "versa.sub"
//       CHECK:   "versa.mul"
//       CHECK:   "versa.add"
func.func @negative_matmul_weights_not_constant(%a: tensor<5x3xf32>, %w: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %mean = "versa.constant"() {value = dense<[[1.0, 3.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %k = "versa.constant"() {value = dense<[[3.0, 2.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %y = "versa.matmul"(%a, %w) : (tensor<5x3xf32>, tensor<3x2xf32>) -> tensor<5x2xf32>
  %c = "versa.sub"(%y, %mean) : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  %s = "versa.mul"(%c, %k) : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  %o = "versa.add"(%s, %mean) : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  return %o : tensor<5x2xf32>
}

// -----

// A negative variance gives NaN scales: folded weights would turn every output NaN.
// CHECK-LABEL: func.func @negative_batch_norm_not_finite
//       CHECK:   "versa.batch_norm"
func.func @negative_batch_norm_not_finite(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %p = "versa.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "versa.constant"() {value = dense<[1.0, -2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %o = "versa.batch_norm"(%y, %p, %p, %p, %var) {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}
