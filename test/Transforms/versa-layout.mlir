// RUN: versa-opt %s --split-input-file --versa-layout=layout=nhwc | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-layout=layout=nchw | FileCheck %s --check-prefix=NCHW

// A constant filter is transposed at compile time: FCHW [2, 1, 1, 2] → HWCF [1, 2, 1, 2].
// CHECK-LABEL: func.func @conv_constant_filter
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x1x4x4xf32>)
//   CHECK-DAG:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x1x4x4xf32>) -> tensor<1x4x4x1xf32>
//   CHECK-DAG:   %[[W:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>}
//       CHECK:   %[[C:.+]] = "versa.conv2d"(%[[XT]], %[[W]]) {layout = "NHWC"} : (tensor<1x4x4x1xf32>, tensor<1x2x1x2xf32>) -> tensor<1x4x3x2xf32>
//       CHECK:   %[[R:.+]] = "versa.relu"(%[[C]])
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[R]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x3x2xf32>) -> tensor<1x2x4x3xf32>
//       CHECK:   return %[[Y]]
func.func @conv_constant_filter(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = "versa.constant"() {value = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>} : () -> tensor<2x1x1x2xf32>
  %y = "versa.conv2d"(%x, %w) : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32>
  %r = "versa.relu"(%y) : (tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  return %r : tensor<1x2x4x3xf32>
}

// -----

// A filter that is an argument gets a transpose of its own (at the boundary); a depthwise filter
// [C, 1, KH, KW] becomes [KH, KW, 1, C].
// CHECK-LABEL: func.func @depthwise_argument_filter
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x8x6x6xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
//   CHECK-DAG:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>}
//   CHECK-DAG:   %[[WT:.+]] = "versa.transpose"(%[[W]]) {perm = array<i64: 2, 3, 1, 0>} : (tensor<8x1x3x3xf32>) -> tensor<3x3x1x8xf32>
//       CHECK:   %[[C:.+]] = "versa.conv2d"(%[[XT]], %[[WT]]) {groups = 8 : i64, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
//  CHECK-SAME:     -> tensor<2x3x3x8xf32>
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[C]]) {perm = array<i64: 0, 3, 1, 2>}
//       CHECK:   return %[[Y]] : tensor<2x8x3x3xf32>
func.func @depthwise_argument_filter(%x: tensor<2x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %y = "versa.conv2d"(%x, %w) {groups = 8 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x3x3xf32>
  return %y : tensor<2x8x3x3xf32>
}

// -----

// conv-bn-relu-conv-bn-add-relu: the residual add takes the block input in NHWC too, and the
// whole block keeps exactly two transposes: after the argument and before the return.
// CHECK-LABEL: func.func @residual_block
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4x8x8xf32>, %[[S:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>, %[[M:.+]]: tensor<4xf32>, %[[V:.+]]: tensor<4xf32>)
//       CHECK:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>}
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   %[[C1:.+]] = "versa.conv2d"(%[[XT]], %{{.+}}) {layout = "NHWC"
//       CHECK:   %[[N1:.+]] = "versa.batch_norm"(%[[C1]], %[[S]], %[[B]], %[[M]], %[[V]]) {epsilon = {{.+}}, layout = "NHWC"}
//       CHECK:   %[[R1:.+]] = "versa.relu"(%[[N1]])
//       CHECK:   %[[C2:.+]] = "versa.conv2d"(%[[R1]], %{{.+}}) {layout = "NHWC"
//       CHECK:   %[[N2:.+]] = "versa.batch_norm"(%[[C2]], {{.+}}layout = "NHWC"
//       CHECK:   %[[A:.+]] = "versa.add"(%[[N2]], %[[XT]]) : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
//       CHECK:   %[[R2:.+]] = "versa.relu"(%[[A]])
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[R2]]) {perm = array<i64: 0, 3, 1, 2>}
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   return %[[Y]]
func.func @residual_block(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %w1 = "versa.constant"() {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %w2 = "versa.constant"() {value = dense<0.25> : tensor<4x4x3x3xf32>} : () -> tensor<4x4x3x3xf32>
  %c1 = "versa.conv2d"(%x, %w1) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %n1 = "versa.batch_norm"(%c1, %s, %b, %m, %v) {epsilon = 1.0e-05 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r1 = "versa.relu"(%n1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c2 = "versa.conv2d"(%r1, %w2) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %n2 = "versa.batch_norm"(%c2, %s, %b, %m, %v) {epsilon = 1.0e-05 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %a = "versa.add"(%n2, %x) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = "versa.relu"(%a) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r2 : tensor<1x4x8x8xf32>
}

// -----

// A bias [C, 1, 1] that is an argument becomes a reshape to [1, 1, 1, C]; a constant one is
// permuted at compile time. The pools run in NHWC; the spatial mean drops the last transpose.
// CHECK-LABEL: func.func @pools_bias_and_mean
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x8x8xf32>, %[[BIAS:.+]]: tensor<2x1x1xf32>)
//       CHECK:   %[[XT:.+]] = "versa.transpose"(%[[X]])
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[XT]]) {kernel = array<i64: 2, 2>, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x8x8x2xf32>) -> tensor<1x4x4x2xf32>
//   CHECK-DAG:   %[[BR:.+]] = "versa.reshape"(%[[BIAS]]) : (tensor<2x1x1xf32>) -> tensor<1x1x1x2xf32>
//       CHECK:   %[[A:.+]] = "versa.add"(%[[P]], %[[BR]])
//   CHECK-DAG:   %[[K:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>}
//       CHECK:   %[[M:.+]] = "versa.mul"(%[[A]], %[[K]])
//       CHECK:   %[[Q:.+]] = "versa.avg_pool2d"(%[[M]]) {kernel = array<i64: 3, 3>, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>}
//       CHECK:   %[[R:.+]] = "versa.reduce_mean"(%[[Q]]) {axes = array<i64: 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   return %[[R]]
func.func @pools_bias_and_mean(%x: tensor<1x2x8x8xf32>, %bias: tensor<2x1x1xf32>) -> tensor<1x2xf32> {
  %k = "versa.constant"() {value = dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>} : () -> tensor<2x1x1xf32>
  %p = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %a = "versa.add"(%p, %bias) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = "versa.mul"(%a, %k) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %q = "versa.avg_pool2d"(%m) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = "versa.reduce_mean"(%q) {axes = array<i64: 2, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// -----

// Softmax and a keepdims reduction over the channels, and a concat along them, move their axis
// to the last dim; one transpose per result remains, before the return.
// CHECK-LABEL: func.func @channel_axis_ops
//       CHECK:   %[[XT:.+]] = "versa.transpose"(%{{.+}}) {perm = array<i64: 0, 2, 3, 1>}
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[XT]])
//       CHECK:   %[[C:.+]] = "versa.concat"(%[[P]], %[[P]]) {axis = 3 : i64} : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x6xf32>
//       CHECK:   %[[S:.+]] = "versa.softmax"(%[[C]]) {axis = 3 : i64}
//   CHECK-DAG:   %[[R:.+]] = "versa.reduce_sum"(%[[S]]) {axes = array<i64: 3>, keepdims = true} : (tensor<1x2x2x6xf32>) -> tensor<1x2x2x1xf32>
//   CHECK-DAG:   %[[ST:.+]] = "versa.transpose"(%[[S]]) {perm = array<i64: 0, 3, 1, 2>}
//   CHECK-DAG:   %[[RT:.+]] = "versa.transpose"(%[[R]]) {perm = array<i64: 0, 3, 1, 2>}
//       CHECK:   return %[[ST]], %[[RT]]
func.func @channel_axis_ops(%x: tensor<1x3x4x4xf32>) -> (tensor<1x6x2x2xf32>, tensor<1x1x2x2xf32>) {
  %p = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  %c = "versa.concat"(%p, %p) {axis = 1 : i64} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x6x2x2xf32>
  %s = "versa.softmax"(%c) {axis = -3 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32>
  %r = "versa.reduce_sum"(%s) {axes = array<i64: 1>, keepdims = true} : (tensor<1x6x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %s, %r : tensor<1x6x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// Elementwise ops between an argument and a conv: the transpose rises to the argument.
// CHECK-LABEL: func.func @hoist_to_argument
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x4x4xf32>)
//       CHECK:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>}
//       CHECK:   %[[M:.+]] = "versa.mul"(%[[XT]], %{{.+}}) : (tensor<1x4x4x2xf32>, tensor<f32>) -> tensor<1x4x4x2xf32>
//       CHECK:   %[[E:.+]] = "versa.exp"(%[[M]])
//       CHECK:   "versa.conv2d"(%[[E]], %{{.+}}) {layout = "NHWC"}
func.func @hoist_to_argument(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %half = "versa.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %w = "versa.constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %m = "versa.mul"(%x, %half) : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %e = "versa.exp"(%m) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = "versa.conv2d"(%e, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A net already in NHWC is left as it is; to NCHW it gets one transpose after the argument and
// one before the return.
// CHECK-LABEL: func.func @negative_already_nhwc
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   "versa.conv2d"({{.+}}layout = "NHWC"
//       CHECK:   "versa.batch_norm"({{.+}}layout = "NHWC"
//       CHECK:   "versa.max_pool2d"({{.+}}layout = "NHWC"
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   return
// NCHW-LABEL: func.func @negative_already_nhwc
//  NCHW-SAME:   (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[W:.+]]: tensor<3x3x3x4xf32>, %[[P:.+]]: tensor<4xf32>)
//   NCHW-DAG:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
//   NCHW-DAG:   %[[WT:.+]] = "versa.transpose"(%[[W]]) {perm = array<i64: 3, 2, 0, 1>} : (tensor<3x3x3x4xf32>) -> tensor<4x3x3x3xf32>
//       NCHW:   %[[C:.+]] = "versa.conv2d"(%[[XT]], %[[WT]]) {layout = "NCHW"
//       NCHW:   %[[N:.+]] = "versa.batch_norm"(%[[C]], {{.+}}layout = "NCHW"
//       NCHW:   %[[R:.+]] = "versa.relu"(%[[N]])
//       NCHW:   %[[M:.+]] = "versa.max_pool2d"(%[[R]]) {kernel = array<i64: 2, 2>, layout = "NCHW"
//       NCHW:   %[[S:.+]] = "versa.slice"(%[[M]]) {limits = array<i64: 1, 4, 3, 3>, starts = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}
//       NCHW:   %[[Y:.+]] = "versa.transpose"(%[[S]]) {perm = array<i64: 0, 2, 3, 1>}
//   NCHW-NOT:   "versa.transpose"
//       NCHW:   return %[[Y]] : tensor<1x3x3x4xf32>
func.func @negative_already_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %p: tensor<4xf32>) -> tensor<1x3x3x4xf32> {
  %c = "versa.conv2d"(%x, %w) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %n = "versa.batch_norm"(%c, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32, layout = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %r = "versa.relu"(%n) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %m = "versa.max_pool2d"(%r) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %s = "versa.slice"(%m) {starts = array<i64: 0, 0, 0, 0>, limits = array<i64: 1, 3, 3, 4>} : (tensor<1x4x4x4xf32>) -> tensor<1x3x3x4xf32>
  return %s : tensor<1x3x3x4xf32>
}

// -----

// A reshape (the flatten before a linear layer) stops the motion: the transpose stays before it.
// CHECK-LABEL: func.func @negative_reshape_stops_motion
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"({{.+}}layout = "NHWC"
//       CHECK:   %[[T:.+]] = "versa.transpose"(%[[P]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x2x2x4xf32>) -> tensor<1x4x2x2xf32>
//       CHECK:   %[[F:.+]] = "versa.reshape"(%[[T]]) : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
//       CHECK:   "versa.matmul"(%[[F]], %{{.+}})
func.func @negative_reshape_stops_motion(%x: tensor<1x4x4x4xf32>, %fc: tensor<16x10xf32>) -> tensor<1x10xf32> {
  %p = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %f = "versa.reshape"(%p) : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %y = "versa.matmul"(%f, %fc) : (tensor<1x16xf32>, tensor<16x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

// -----

// A quantized block (what fold_quantized makes of a PT2E or ONNX QDQ model): qconv2d converts as
// conv2d does, its int8 filter [F, C, 1, 1] permuted at compile time to [1, 1, C, F]; transposes
// sink through quantize, requantize and dequantize, a per-channel requantize's axis going to 3.
// The first quantize's transpose (versa.transpose takes no ui8) moves above it to the argument.
// CHECK-LABEL: func.func @quantized_block
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x4x4xf32>)
//       CHECK:   %[[XT:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
//   CHECK-NOT:   "versa.transpose"
//   CHECK-DAG:   %[[W:.+]] = "versa.constant"() {value = dense<{{\[\[\[\[}}1, 3], [2, 4]]]]> : tensor<1x1x2x2xi8>}
//   CHECK-DAG:   %[[Q0:.+]] = "versa.quantize"(%[[XT]], %{{.+}}, %{{.+}}) : (tensor<1x4x4x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x2xui8>
//       CHECK:   %[[A0:.+]] = "versa.qconv2d"(%[[Q0]], %[[W]], %{{.+}}, %{{.+}}) {layout = "NHWC"} : (tensor<1x4x4x2xui8>, tensor<1x1x2x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x2xi32>
//       CHECK:   %[[R0:.+]] = "versa.requantize"(%[[A0]], %{{.+}}, %{{.+}}) {axis = 3 : i64} : (tensor<1x4x4x2xi32>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x4x4x2xui8>
//       CHECK:   %[[D0:.+]] = "versa.dequantize"(%[[R0]], %{{.+}}, %{{.+}}) : (tensor<1x4x4x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x2xf32>
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[D0]]) {kernel = array<i64: 2, 2>, layout = "NHWC", strides = array<i64: 2, 2>}
//       CHECK:   %[[Q1:.+]] = "versa.quantize"(%[[P]], {{.+}} -> tensor<1x2x2x2xui8>
//       CHECK:   %[[A1:.+]] = "versa.qconv2d"(%[[Q1]], %{{.+}}, {{.+}}layout = "NHWC"
//       CHECK:   %[[R1:.+]] = "versa.requantize"(%[[A1]], {{.+}}axis = 3 : i64
//       CHECK:   %[[D1:.+]] = "versa.dequantize"(%[[R1]]
//   CHECK-DAG:   %[[S:.+]] = "versa.dequantize"(%[[Q1]], {{.+}} -> tensor<1x2x2x2xf32>
//       CHECK:   %[[E:.+]] = "versa.add"(%[[D1]], %[[S]]) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[E]]) {perm = array<i64: 0, 3, 1, 2>}
//   CHECK-NOT:   "versa.transpose"
//       CHECK:   return %[[Y]] : tensor<1x2x2x2xf32>
func.func @quantized_block(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %s = "versa.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %zw = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %w = "versa.constant"() {value = dense<[[[[1]], [[2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %rs = "versa.constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %rz = "versa.constant"() {value = dense<[3, 4]> : tensor<2xui8>} : () -> tensor<2xui8>
  %q0 = "versa.quantize"(%x, %s, %z) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
  %a0 = "versa.qconv2d"(%q0, %w, %z, %zw) : (tensor<1x2x4x4xui8>, tensor<2x2x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  %r0 = "versa.requantize"(%a0, %rs, %rz) {axis = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xui8>
  %d0 = "versa.dequantize"(%r0, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %p = "versa.max_pool2d"(%d0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %q1 = "versa.quantize"(%p, %s, %z) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %a1 = "versa.qconv2d"(%q1, %w, %z, %zw) : (tensor<1x2x2x2xui8>, tensor<2x2x1x1xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x2x2x2xi32>
  %r1 = "versa.requantize"(%a1, %rs, %rz) {axis = 1 : i64} : (tensor<1x2x2x2xi32>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x2x2xui8>
  %d1 = "versa.dequantize"(%r1, %s, %z) : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
  %sk = "versa.dequantize"(%q1, %s, %z) : (tensor<1x2x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xf32>
  %e = "versa.add"(%d1, %sk) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %e : tensor<1x2x2x2xf32>
}

// A qconv2d whose filter is a ui8 argument keeps its layout: versa.transpose takes no ui8, and
// no quantize above the argument could take the transpose (found by the quantized fuzzer).
// CHECK-LABEL: func.func @unsigned_filter_argument
//   CHECK-NOT:   versa.transpose
//       CHECK:   "versa.qconv2d"({{.+}}) : (tensor<1x2x5x5xui8>, tensor<3x2x1x1xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x5x5xi32>
func.func @unsigned_filter_argument(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x1x1xui8>) -> tensor<1x3x5x5xi32> {
  %s = "versa.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %q = "versa.quantize"(%x, %s, %z) : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xui8>
  %0 = "versa.qconv2d"(%q, %w, %z, %z) : (tensor<1x2x5x5xui8>, tensor<3x2x1x1xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x3x5x5xi32>
  return %0 : tensor<1x3x5x5xi32>
}
