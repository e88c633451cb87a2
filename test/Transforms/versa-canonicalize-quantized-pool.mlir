// RUN: versa-opt %s --split-input-file --versa-canonicalize | FileCheck %s

// PT2E's stem: requantized bytes dequantized, max-pooled in f32, then quantized with the same
// parameters (quantize = x · f32(1/s) with scale 1): the pool runs on the ui8 bytes.
// CHECK-LABEL: func.func @pt2e_stem_pool
//  CHECK-SAME:   (%[[Q:.+]]: tensor<1x4x8x8xui8>)
//   CHECK-NOT:   "versa.dequantize"
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[Q]]) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xui8>) -> tensor<1x4x4x4xui8>
//   CHECK-NOT:   "versa.quantize"
//       CHECK:   return %[[P]] : tensor<1x4x4x4xui8>
func.func @pt2e_stem_pool(%q: tensor<1x4x8x8xui8>) -> tensor<1x4x4x4xui8> {
  %s = "versa.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %k = "versa.constant"() {value = dense<2.000000e+01> : tensor<f32>} : () -> tensor<f32>
  %m = "versa.mul"(%p, %k) : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %one = "versa.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %r = "versa.quantize"(%m, %one, %z) : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x4x4xui8>
  return %r : tensor<1x4x4x4xui8>
}

// -----

// ONNX QDQ (quantize divides by s), i8, NHWC.
// CHECK-LABEL: func.func @qdq_nhwc_i8
//  CHECK-SAME:   (%[[Q:.+]]: tensor<2x6x6x8xi8>)
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[Q]]) {kernel = array<i64: 2, 2>, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<2x6x6x8xi8>) -> tensor<2x3x3x8xi8>
//   CHECK-NOT:   "versa.quantize"
//       CHECK:   return %[[P]]
func.func @qdq_nhwc_i8(%q: tensor<2x6x6x8xi8>) -> tensor<2x3x3x8xi8> {
  %s = "versa.constant"() {value = dense<0.0173> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<-5> : tensor<i8>} : () -> tensor<i8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<2x6x6x8xi8>, tensor<f32>, tensor<i8>) -> tensor<2x6x6x8xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<2x6x6x8xf32>) -> tensor<2x3x3x8xf32>
  %r = "versa.quantize"(%p, %s, %z) : (tensor<2x3x3x8xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3x3x8xi8>
  return %r : tensor<2x3x3x8xi8>
}

// -----

// The pooled floats also feed a residual add: the integer pool serves both, the add reading
// its dequantized result.
// CHECK-LABEL: func.func @pool_read_twice
//  CHECK-SAME:   (%[[Q:.+]]: tensor<1x2x4x4xui8>, %[[B:.+]]: tensor<1x2x2x2xf32>)
//       CHECK:   %[[S:.+]] = "versa.constant"() {value = dense<1.250000e-01> : tensor<f32>}
//       CHECK:   %[[Z:.+]] = "versa.constant"() {value = dense<128> : tensor<ui8>}
//       CHECK:   %[[P:.+]] = "versa.max_pool2d"(%[[Q]]) {{.*}} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
//       CHECK:   %[[D:.+]] = "versa.dequantize"(%[[P]], %[[S]], %[[Z]])
//       CHECK:   %[[A:.+]] = "versa.add"(%[[D]], %[[B]])
//   CHECK-NOT:   "versa.quantize"
//       CHECK:   return %[[P]], %[[A]]
func.func @pool_read_twice(%q: tensor<1x2x4x4xui8>, %b: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>) {
  %s = "versa.constant"() {value = dense<0.125> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %r = "versa.quantize"(%p, %s, %z) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %a = "versa.add"(%p, %b) : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %r, %a : tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>
}

// -----

// Another zero point after the pool: the pool still runs on the bytes (exact for any
// quantize after it), but the quantize stays.
// CHECK-LABEL: func.func @negative_other_zero_point
//       CHECK:   "versa.max_pool2d"(%{{.*}}) {{.*}} : (tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8>
//       CHECK:   "versa.dequantize"
//       CHECK:   "versa.quantize"
func.func @negative_other_zero_point(%q: tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8> {
  %s = "versa.constant"() {value = dense<0.125> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %z2 = "versa.constant"() {value = dense<127> : tensor<ui8>} : () -> tensor<ui8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %r = "versa.quantize"(%p, %s, %z2) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  return %r : tensor<1x2x2x2xui8>
}

// -----

// A factor that is not 1/s (19 · 0.05 = 0.95: large bytes come back one smaller): the
// quantize stays.
// CHECK-LABEL: func.func @negative_other_factor
//       CHECK:   "versa.max_pool2d"(%{{.*}}) {{.*}} : (tensor<1x1x2x2xi8>) -> tensor<1x1x1x1xi8>
//       CHECK:   "versa.dequantize"
//       CHECK:   "versa.mul"
//       CHECK:   "versa.quantize"
func.func @negative_other_factor(%q: tensor<1x1x2x2xi8>) -> tensor<1x1x1x1xi8> {
  %s = "versa.constant"() {value = dense<5.000000e-02> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x1x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  %k = "versa.constant"() {value = dense<1.900000e+01> : tensor<f32>} : () -> tensor<f32>
  %m = "versa.mul"(%p, %k) : (tensor<1x1x1x1xf32>, tensor<f32>) -> tensor<1x1x1x1xf32>
  %one = "versa.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %r = "versa.quantize"(%m, %one, %z) : (tensor<1x1x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x1x1xi8>
  return %r : tensor<1x1x1x1xi8>
}

// -----

// Per-channel parameters, a negative scale and average pooling are left alone.
// CHECK-LABEL: func.func @negative_per_channel
//       CHECK:   "versa.dequantize"
//       CHECK:   "versa.max_pool2d"(%{{.*}}) {{.*}} : (tensor<1x2x4x4xf32>)
//       CHECK:   "versa.quantize"
func.func @negative_per_channel(%q: tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi8> {
  %s = "versa.constant"() {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z = "versa.constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %d = "versa.dequantize"(%q, %s, %z) {axis = 1 : i64} : (tensor<1x2x4x4xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x4x4xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %r = "versa.quantize"(%p, %s, %z) {axis = 1 : i64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x2x2xi8>
  return %r : tensor<1x2x2x2xi8>
}

// CHECK-LABEL: func.func @negative_scale
//       CHECK:   "versa.dequantize"
//       CHECK:   "versa.max_pool2d"(%{{.*}}) {{.*}} : (tensor<1x1x2x2xf32>)
func.func @negative_scale(%q: tensor<1x1x2x2xi8>) -> tensor<1x1x1x1xi8> {
  %s = "versa.constant"() {value = dense<-0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x1x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xf32>
  %p = "versa.max_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  %r = "versa.quantize"(%p, %s, %z) : (tensor<1x1x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x1x1xi8>
  return %r : tensor<1x1x1x1xi8>
}

// CHECK-LABEL: func.func @negative_avg_pool
//       CHECK:   "versa.avg_pool2d"(%{{.*}}) {{.*}} : (tensor<1x1x2x2xf32>)
//       CHECK:   "versa.quantize"
func.func @negative_avg_pool(%q: tensor<1x1x2x2xi8>) -> tensor<1x1x1x1xi8> {
  %s = "versa.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %d = "versa.dequantize"(%q, %s, %z) : (tensor<1x1x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xf32>
  %p = "versa.avg_pool2d"(%d) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
  %r = "versa.quantize"(%p, %s, %z) : (tensor<1x1x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x1x1xi8>
  return %r : tensor<1x1x1x1xi8>
}
