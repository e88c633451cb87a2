// RUN: versa-opt %s --split-input-file | FileCheck %s
// RUN: versa-opt %s --split-input-file | versa-opt --split-input-file | FileCheck %s

// Round trip of every versa op in the generic form of docs/design.md: the parser accepts it, the
// verifier accepts it, and the printed form parses back to the same IR.

// CHECK-LABEL: func.func @constant
//       CHECK:   %[[D:.+]] = "versa.constant"() {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
//       CHECK:   %[[S:.+]] = "versa.constant"() {value = dense<5> : tensor<3xi32>} : () -> tensor<3xi32>
//       CHECK:   return %[[D]], %[[S]]
func.func @constant() -> (tensor<2x2xf32>, tensor<3xi32>) {
  %0 = "versa.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %1 = "versa.constant"() {value = dense<5> : tensor<3xi32>} : () -> tensor<3xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @binary
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>)
//       CHECK:   %[[ADD:.+]] = "versa.add"(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[SUB:.+]] = "versa.sub"(%[[ADD]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[MUL:.+]] = "versa.mul"(%[[SUB]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[DIV:.+]] = "versa.div"(%[[MUL]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[MAX:.+]] = "versa.max"(%[[DIV]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[MIN:.+]] = "versa.min"(%[[MAX]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[POW:.+]] = "versa.pow"(%[[MIN]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   return %[[POW]]
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "versa.sub"(%0, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "versa.mul"(%1, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "versa.div"(%2, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "versa.max"(%3, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "versa.min"(%4, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = "versa.pow"(%5, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}

// -----

// NumPy broadcasting: ranks align on the right, size-1 dims stretch.
// CHECK-LABEL: func.func @binary_broadcast
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x1xf32>, %[[B:.+]]: tensor<2x1x8xf32>)
//       CHECK:   %[[R:.+]] = "versa.add"(%[[A]], %[[B]]) : (tensor<4x1xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
//       CHECK:   return %[[R]]
func.func @binary_broadcast(%a: tensor<4x1xf32>, %b: tensor<2x1x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x1xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Integer element types are accepted where the op is not float-only.
// CHECK-LABEL: func.func @binary_integer
//       CHECK:   "versa.mul"(%{{.+}}, %{{.+}}) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
//       CHECK:   "versa.max"(%{{.+}}, %{{.+}}) : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
func.func @binary_integer(%a: tensor<16xi32>, %b: tensor<16xi8>) -> (tensor<16xi32>, tensor<16xi8>) {
  %0 = "versa.mul"(%a, %a) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %1 = "versa.max"(%b, %b) : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
  return %0, %1 : tensor<16xi32>, tensor<16xi8>
}

// -----

// CHECK-LABEL: func.func @unary
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xf32>)
//       CHECK:   %[[NEG:.+]] = "versa.neg"(%[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[ABS:.+]] = "versa.abs"(%[[NEG]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[EXP:.+]] = "versa.exp"(%[[ABS]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[LOG:.+]] = "versa.log"(%[[EXP]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[SQRT:.+]] = "versa.sqrt"(%[[LOG]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[RSQRT:.+]] = "versa.rsqrt"(%[[SQRT]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[TANH:.+]] = "versa.tanh"(%[[RSQRT]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[SIG:.+]] = "versa.sigmoid"(%[[TANH]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[RELU:.+]] = "versa.relu"(%[[SIG]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[ERF:.+]] = "versa.erf"(%[[RELU]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   return %[[ERF]]
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "versa.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "versa.log"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "versa.sqrt"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "versa.rsqrt"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "versa.tanh"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "versa.sigmoid"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "versa.relu"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "versa.erf"(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %9 : tensor<2x3xf32>
}

// -----

// Float-only ops accept f16 and bf16 too; neg/abs/relu accept integers.
// CHECK-LABEL: func.func @unary_other_types
//       CHECK:   "versa.exp"(%{{.+}}) : (tensor<8xf16>) -> tensor<8xf16>
//       CHECK:   "versa.tanh"(%{{.+}}) : (tensor<8xbf16>) -> tensor<8xbf16>
//       CHECK:   "versa.relu"(%{{.+}}) : (tensor<8xi8>) -> tensor<8xi8>
//       CHECK:   "versa.abs"(%{{.+}}) : (tensor<8xi32>) -> tensor<8xi32>
func.func @unary_other_types(%h: tensor<8xf16>, %b: tensor<8xbf16>, %c: tensor<8xi8>, %i: tensor<8xi32>)
    -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xi8>, tensor<8xi32>) {
  %0 = "versa.exp"(%h) : (tensor<8xf16>) -> tensor<8xf16>
  %1 = "versa.tanh"(%b) : (tensor<8xbf16>) -> tensor<8xbf16>
  %2 = "versa.relu"(%c) : (tensor<8xi8>) -> tensor<8xi8>
  %3 = "versa.abs"(%i) : (tensor<8xi32>) -> tensor<8xi32>
  return %0, %1, %2, %3 : tensor<8xf16>, tensor<8xbf16>, tensor<8xi8>, tensor<8xi32>
}

// -----

// Trigonometry, log1p/expm1, rounding and sign (dialects/ops_math.py).
// CHECK-LABEL: func.func @math
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xf32>)
//       CHECK:   %[[SIN:.+]] = "versa.sin"(%[[X]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[COS:.+]] = "versa.cos"(%[[SIN]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[TAN:.+]] = "versa.tan"(%[[COS]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[ATAN:.+]] = "versa.atan"(%[[TAN]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[LOG1P:.+]] = "versa.log1p"(%[[ATAN]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[EXPM1:.+]] = "versa.expm1"(%[[LOG1P]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[FLOOR:.+]] = "versa.floor"(%[[EXPM1]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[CEIL:.+]] = "versa.ceil"(%[[FLOOR]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[ROUND:.+]] = "versa.round"(%[[CEIL]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[TRUNC:.+]] = "versa.trunc"(%[[ROUND]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[SIGN:.+]] = "versa.sign"(%[[TRUNC]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   return %[[SIGN]]
func.func @math(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "versa.cos"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.tan"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "versa.atan"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "versa.log1p"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "versa.expm1"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "versa.floor"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "versa.ceil"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "versa.round"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "versa.trunc"(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = "versa.sign"(%9) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %10 : tensor<2x3xf32>
}

// -----

// sin and round take f16 and bf16 too; sign takes integers (floor and the rest: floats only).
// CHECK-LABEL: func.func @math_other_types
//       CHECK:   "versa.sin"(%{{.+}}) : (tensor<8xf16>) -> tensor<8xf16>
//       CHECK:   "versa.round"(%{{.+}}) : (tensor<8xbf16>) -> tensor<8xbf16>
//       CHECK:   "versa.sign"(%{{.+}}) : (tensor<8xi8>) -> tensor<8xi8>
//       CHECK:   "versa.sign"(%{{.+}}) : (tensor<8xi64>) -> tensor<8xi64>
func.func @math_other_types(%h: tensor<8xf16>, %b: tensor<8xbf16>, %c: tensor<8xi8>, %i: tensor<8xi64>)
    -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xi8>, tensor<8xi64>) {
  %0 = "versa.sin"(%h) : (tensor<8xf16>) -> tensor<8xf16>
  %1 = "versa.round"(%b) : (tensor<8xbf16>) -> tensor<8xbf16>
  %2 = "versa.sign"(%c) : (tensor<8xi8>) -> tensor<8xi8>
  %3 = "versa.sign"(%i) : (tensor<8xi64>) -> tensor<8xi64>
  return %0, %1, %2, %3 : tensor<8xf16>, tensor<8xbf16>, tensor<8xi8>, tensor<8xi64>
}

// -----

// CHECK-LABEL: func.func @gelu
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x16xf32>)
//       CHECK:   %[[D:.+]] = "versa.gelu"(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   %[[N:.+]] = "versa.gelu"(%[[D]]) {approximate = "none"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   %[[T:.+]] = "versa.gelu"(%[[N]]) {approximate = "tanh"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   return %[[T]]
func.func @gelu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.gelu"(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.gelu"(%0) {approximate = "none"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = "versa.gelu"(%1) {approximate = "tanh"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @clamp
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x16xf32>)
//       CHECK:   %[[LO:.+]] = "versa.clamp"(%[[X]]) {min = 0.000000e+00 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   %[[BOTH:.+]] = "versa.clamp"(%[[LO]]) {max = 6.000000e+00 : f32, min = -1.500000e+00 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   %[[HI:.+]] = "versa.clamp"(%[[BOTH]]) {max = 2.500000e+00 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//       CHECK:   return %[[HI]]
func.func @clamp(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.clamp"(%x) {min = 0.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.clamp"(%0) {min = -1.5 : f32, max = 6.0 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = "versa.clamp"(%1) {max = 2.5 : f32} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @cast
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x8xf32>)
//       CHECK:   %[[I:.+]] = "versa.cast"(%[[X]]) : (tensor<2x8xf32>) -> tensor<2x8xi32>
//       CHECK:   %[[H:.+]] = "versa.cast"(%[[I]]) : (tensor<2x8xi32>) -> tensor<2x8xf16>
//       CHECK:   %[[B:.+]] = "versa.cast"(%[[H]]) : (tensor<2x8xf16>) -> tensor<2x8xbf16>
//       CHECK:   %[[Q:.+]] = "versa.cast"(%[[B]]) : (tensor<2x8xbf16>) -> tensor<2x8xi8>
//       CHECK:   return %[[Q]]
func.func @cast(%x: tensor<2x8xf32>) -> tensor<2x8xi8> {
  %0 = "versa.cast"(%x) : (tensor<2x8xf32>) -> tensor<2x8xi32>
  %1 = "versa.cast"(%0) : (tensor<2x8xi32>) -> tensor<2x8xf16>
  %2 = "versa.cast"(%1) : (tensor<2x8xf16>) -> tensor<2x8xbf16>
  %3 = "versa.cast"(%2) : (tensor<2x8xbf16>) -> tensor<2x8xi8>
  return %3 : tensor<2x8xi8>
}

// -----

// CHECK-LABEL: func.func @matmul
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
//       CHECK:   %[[C:.+]] = "versa.matmul"(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
//       CHECK:   return %[[C]]
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batch dims broadcast as in np.matmul: [2, 1] with [3] gives [2, 3].
// CHECK-LABEL: func.func @matmul_batch_broadcast
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x1x4x8xf32>, %[[B:.+]]: tensor<3x8x5xf32>)
//       CHECK:   %[[C:.+]] = "versa.matmul"(%[[A]], %[[B]]) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
//       CHECK:   return %[[C]]
func.func @matmul_batch_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Every attribute at its default may be omitted, and stays omitted.
// CHECK-LABEL: func.func @conv2d_defaults
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]]) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
//       CHECK:   return %[[Y]]
func.func @conv2d_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = "versa.conv2d"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Height: (9 + 1 + 1 - (2 * (3 - 1) + 1)) / 2 + 1 = 4; width: (9 + 0 + 2 - 5) / 1 + 1 = 7.
// CHECK-LABEL: func.func @conv2d_all_attrs
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x9x9xf32>, %[[W:.+]]: tensor<8x2x3x3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]])
//  CHECK-SAME:     {dilations = array<i64: 2, 2>, groups = 2 : i64, layout = "NCHW", padding = array<i64: 1, 0, 1, 2>, strides = array<i64: 2, 1>}
//  CHECK-SAME:     : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x4x7xf32>
//       CHECK:   return %[[Y]]
func.func @conv2d_all_attrs(%x: tensor<2x4x9x9xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x8x4x7xf32> {
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 1, 2>, dilations = array<i64: 2, 2>, groups = 2 : i64, layout = "NCHW"} : (tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x4x7xf32>
  return %0 : tensor<2x8x4x7xf32>
}

// -----

// NHWC: the filter is [KH, KW, C/groups, F] and the result keeps channels last.
// CHECK-LABEL: func.func @conv2d_nhwc
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[W:.+]]: tensor<3x3x3x16xf32>)
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]]) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
//       CHECK:   return %[[Y]]
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = "versa.conv2d"(%x, %w) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}

// -----

// Depthwise: groups equal to the channel count, one input channel per group.
// CHECK-LABEL: func.func @conv2d_depthwise
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x8x5x5xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]]) {groups = 8 : i64} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
//       CHECK:   return %[[Y]]
func.func @conv2d_depthwise(%x: tensor<1x8x5x5xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 8 : i64} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @grouped_conv2d_nhwc
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x6x6x4xf32>, %[[W:.+]]: tensor<3x3x2x6xf32>)
//       CHECK:   %[[Y:.+]] = "versa.conv2d"(%[[X]], %[[W]]) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x2x2x6xf32>
//       CHECK:   return %[[Y]]
func.func @grouped_conv2d_nhwc(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<1x2x2x6xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 2 : i64, layout = "NHWC", strides = array<i64: 2, 2>} : (tensor<1x6x6x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x2x2x6xf32>
  return %0 : tensor<1x2x2x6xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x8xf32>)
//       CHECK:   %[[K:.+]] = "versa.max_pool2d"(%[[X]]) {kernel = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32>
//       CHECK:   %[[S:.+]] = "versa.max_pool2d"(%[[K]]) {kernel = array<i64: 2, 2>, layout = "NCHW", padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
//       CHECK:   return %[[S]]
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x3x3xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x6x6xf32>
  %1 = "versa.max_pool2d"(%0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, layout = "NCHW"} : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
  return %1 : tensor<1x3x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @avg_pool2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x8x8x3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.avg_pool2d"(%[[X]]) {kernel = array<i64: 3, 3>, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
//       CHECK:   %[[Z:.+]] = "versa.avg_pool2d"(%[[Y]]) {kernel = array<i64: 2, 4>, layout = "NHWC", strides = array<i64: 2, 4>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32>
//       CHECK:   return %[[Z]]
func.func @avg_pool2d(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  %1 = "versa.avg_pool2d"(%0) {kernel = array<i64: 2, 4>, strides = array<i64: 2, 4>, layout = "NHWC"} : (tensor<1x8x8x3xf32>) -> tensor<1x4x2x3xf32>
  return %1 : tensor<1x4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[SUM:.+]] = "versa.reduce_sum"(%[[X]]) {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
//       CHECK:   %[[MAX:.+]] = "versa.reduce_max"(%[[X]]) {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
//       CHECK:   %[[MEAN:.+]] = "versa.reduce_mean"(%[[X]]) {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
//       CHECK:   %[[ALL:.+]] = "versa.reduce_sum"(%[[X]]) {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
//       CHECK:   return %[[SUM]], %[[MAX]], %[[MEAN]], %[[ALL]]
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = "versa.reduce_max"(%x) {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %2 = "versa.reduce_mean"(%x) {axes = array<i64: -1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %3 = "versa.reduce_sum"(%x) {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x10xf32>)
//       CHECK:   %[[A:.+]] = "versa.softmax"(%[[X]]) {axis = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
//       CHECK:   %[[B:.+]] = "versa.softmax"(%[[A]]) {axis = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
//       CHECK:   return %[[B]]
func.func @softmax(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  %1 = "versa.softmax"(%0) {axis = 0 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return %1 : tensor<2x10xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x8xf32>, %[[G:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>)
//       CHECK:   %[[Y:.+]] = "versa.layer_norm"(%[[X]], %[[G]], %[[B]]) {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
//       CHECK:   return %[[Y]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_last_axis
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[Y:.+]] = "versa.layer_norm"(%[[X]], %[[G]], %[[B]]) {axis = -1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
//       CHECK:   return %[[Y]]
func.func @layer_norm_last_axis(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-03 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4x4xf32>, %[[P:.+]]: tensor<3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.batch_norm"(%[[X]], %[[P]], %[[P]], %[[P]], %[[P]]) {epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
//       CHECK:   return %[[Y]]
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = "versa.batch_norm"(%x, %p, %p, %p, %p) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm_nhwc
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x4x4x3xf32>, %[[S:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>, %[[M:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>)
//       CHECK:   %[[Y:.+]] = "versa.batch_norm"(%[[X]], %[[S]], %[[B]], %[[M]], %[[V]]) {epsilon = 1.000000e-03 : f32, layout = "NHWC"} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32>
//       CHECK:   return %[[Y]]
func.func @batch_norm_nhwc(%x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x4x4x3xf32> {
  %0 = "versa.batch_norm"(%x, %s, %b, %m, %v) {epsilon = 1.0e-03 : f32, layout = "NHWC"} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32>
  return %0 : tensor<2x4x4x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x6xf32>)
//       CHECK:   %[[Y:.+]] = "versa.transpose"(%[[X]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
//       CHECK:   return %[[Y]]
func.func @transpose(%x: tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32> {
  %0 = "versa.transpose"(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x6xf32>) -> tensor<1x8x6x3xf32>
  return %0 : tensor<1x8x6x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>)
//       CHECK:   %[[A:.+]] = "versa.reshape"(%[[X]]) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
//       CHECK:   %[[B:.+]] = "versa.reshape"(%[[A]]) : (tensor<6x4xf32>) -> tensor<24xf32>
//       CHECK:   return %[[B]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = "versa.reshape"(%0) : (tensor<6x4xf32>) -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4xf32>, %[[V:.+]]: tensor<4xf32>)
//       CHECK:   %[[A:.+]] = "versa.broadcast_to"(%[[X]]) : (tensor<1x4xf32>) -> tensor<3x4xf32>
//       CHECK:   %[[B:.+]] = "versa.broadcast_to"(%[[V]]) : (tensor<4xf32>) -> tensor<2x3x4xf32>
//       CHECK:   return %[[A]], %[[B]]
func.func @broadcast_to(%x: tensor<1x4xf32>, %v: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>) {
  %0 = "versa.broadcast_to"(%x) : (tensor<1x4xf32>) -> tensor<3x4xf32>
  %1 = "versa.broadcast_to"(%v) : (tensor<4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Two inputs of any sizes along the axis; from the third on, inputs after the first share one
// type (IRDL unifies the types of one variadic operand, see ConcatOp).
// CHECK-LABEL: func.func @concat
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>)
//       CHECK:   %[[Y:.+]] = "versa.concat"(%[[A]], %[[B]]) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
//       CHECK:   %[[Z:.+]] = "versa.concat"(%[[A]], %[[B]], %[[B]]) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x13xf32>
//       CHECK:   %[[W:.+]] = "versa.concat"(%[[A]], %[[A]], %[[A]]) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
//       CHECK:   %[[V:.+]] = "versa.concat"(%[[A]]) {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
//       CHECK:   return %[[Y]], %[[Z]], %[[W]], %[[V]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x8xf32>, tensor<2x13xf32>, tensor<6x3xf32>, tensor<2x3xf32>) {
  %0 = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1 = "versa.concat"(%a, %b, %b) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x13xf32>
  %2 = "versa.concat"(%a, %a, %a) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  %3 = "versa.concat"(%a) {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<2x13xf32>, tensor<6x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice
//  CHECK-SAME:   (%[[X:.+]]: tensor<8x10xf32>)
//       CHECK:   %[[A:.+]] = "versa.slice"(%[[X]]) {limits = array<i64: 6, 10>, starts = array<i64: 2, 0>} : (tensor<8x10xf32>) -> tensor<4x10xf32>
//       CHECK:   %[[B:.+]] = "versa.slice"(%[[X]]) {limits = array<i64: 8, 9>, starts = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<8x10xf32>) -> tensor<4x3xf32>
//       CHECK:   return %[[A]], %[[B]]
func.func @slice(%x: tensor<8x10xf32>) -> (tensor<4x10xf32>, tensor<4x3xf32>) {
  %0 = "versa.slice"(%x) {starts = array<i64: 2, 0>, limits = array<i64: 6, 10>} : (tensor<8x10xf32>) -> tensor<4x10xf32>
  %1 = "versa.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 8, 9>, strides = array<i64: 2, 3>} : (tensor<8x10xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @pad
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xf32>)
//       CHECK:   %[[A:.+]] = "versa.pad"(%[[X]]) {high = array<i64: 0, 2>, low = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
//       CHECK:   %[[B:.+]] = "versa.pad"(%[[X]]) {high = array<i64: 1, 0>, low = array<i64: 0, 0>, value = -1.000000e+00 : f32} : (tensor<2x3xf32>) -> tensor<3x3xf32>
//       CHECK:   return %[[A]], %[[B]]
func.func @pad(%x: tensor<2x3xf32>) -> (tensor<3x6xf32>, tensor<3x3xf32>) {
  %0 = "versa.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  %1 = "versa.pad"(%x) {low = array<i64: 0, 0>, high = array<i64: 1, 0>, value = -1.0 : f32} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0, %1 : tensor<3x6xf32>, tensor<3x3xf32>
}

// -----

// The region reads the group's inputs from the enclosing block (implicit capture, see FusedOp).
// CHECK-LABEL: func.func @fused
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[F:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     %[[S:.+]] = "versa.add"(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
//  CHECK-NEXT:     %[[R:.+]] = "versa.relu"(%[[S]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
//  CHECK-NEXT:     "versa.yield"(%[[R]]) : (tensor<4x8xf32>) -> ()
//  CHECK-NEXT:   }) {kind = "elementwise"} : () -> tensor<4x8xf32>
//       CHECK:   return %[[F]]
func.func @fused(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "versa.relu"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "versa.yield"(%2) : (tensor<4x8xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A matmul epilogue, and a reduction group with two results (of one type: IRDL unifies the
// types of the variadic results).
// CHECK-LABEL: func.func @fused_kinds
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x16xf32>, %[[C:.+]]: tensor<16xf32>)
//       CHECK:   %[[E:.+]] = "versa.fused"() ({
//  CHECK-NEXT:     %[[M:.+]] = "versa.matmul"(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:     %[[S:.+]] = "versa.add"(%[[M]], %[[C]]) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:     "versa.yield"(%[[S]]) : (tensor<4x16xf32>) -> ()
//  CHECK-NEXT:   }) {kind = "epilogue"} : () -> tensor<4x16xf32>
//       CHECK:   %[[R:.+]]:2 = "versa.fused"() ({
//  CHECK-NEXT:     %[[X:.+]] = "versa.softmax"(%[[E]]) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:     %[[L:.+]] = "versa.exp"(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:     "versa.yield"(%[[X]], %[[L]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> ()
//  CHECK-NEXT:   }) {kind = "reduction"} : () -> (tensor<4x16xf32>, tensor<4x16xf32>)
//       CHECK:   return %[[R]]#0, %[[R]]#1
func.func @fused_kinds(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = "versa.add"(%1, %c) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    "versa.yield"(%2) : (tensor<4x16xf32>) -> ()
  }) {kind = "epilogue"} : () -> tensor<4x16xf32>
  %3:2 = "versa.fused"() ({
    %4 = "versa.softmax"(%0) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %5 = "versa.exp"(%4) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    "versa.yield"(%4, %5) : (tensor<4x16xf32>, tensor<4x16xf32>) -> ()
  }) {kind = "reduction"} : () -> (tensor<4x16xf32>, tensor<4x16xf32>)
  return %3#0, %3#1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// i64 and i1 element types: arithmetic on i64, data movement and constants on i1.
// CHECK-LABEL: func.func @i64_and_i1
//       CHECK:   "versa.add"(%{{.+}}, %{{.+}}) : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
//       CHECK:   "versa.neg"(%{{.+}}) : (tensor<4xi64>) -> tensor<4xi64>
//       CHECK:   "versa.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
//       CHECK:   "versa.concat"(%{{.+}}, %{{.+}}) {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi1>) -> tensor<6xi1>
//       CHECK:   "versa.reshape"(%{{.+}}) : (tensor<6xi1>) -> tensor<2x3xi1>
//       CHECK:   "versa.transpose"(%{{.+}}) {perm = array<i64: 1, 0>} : (tensor<2x3xi1>) -> tensor<3x2xi1>
//       CHECK:   "versa.cast"(%{{.+}}) : (tensor<3x2xi1>) -> tensor<3x2xi64>
func.func @i64_and_i1(%a: tensor<4xi64>, %b: tensor<i64>, %m: tensor<4xi1>) -> (tensor<4xi64>, tensor<3x2xi64>) {
  %0 = "versa.add"(%a, %b) : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %1 = "versa.neg"(%0) : (tensor<4xi64>) -> tensor<4xi64>
  %2 = "versa.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
  %3 = "versa.concat"(%m, %2) {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi1>) -> tensor<6xi1>
  %4 = "versa.reshape"(%3) : (tensor<6xi1>) -> tensor<2x3xi1>
  %5 = "versa.transpose"(%4) {perm = array<i64: 1, 0>} : (tensor<2x3xi1>) -> tensor<3x2xi1>
  %6 = "versa.cast"(%5) : (tensor<3x2xi1>) -> tensor<3x2xi64>
  return %1, %6 : tensor<4xi64>, tensor<3x2xi64>
}

// -----

// Comparisons give i1 of the broadcast shape; select, and, or, not broadcast too.
// CHECK-LABEL: func.func @compare_select_logic
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>, %[[I:.+]]: tensor<4x1xi64>, %[[M:.+]]: tensor<4x1xi1>)
//       CHECK:   %[[LT:.+]] = "versa.compare"(%[[A]], %[[B]]) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
//       CHECK:   %[[NE:.+]] = "versa.compare"(%[[I]], %[[I]]) {predicate = "ne"} : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
//       CHECK:   %[[AND:.+]] = "versa.and"(%[[LT]], %[[M]]) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
//       CHECK:   %[[OR:.+]] = "versa.or"(%[[AND]], %[[NE]]) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
//       CHECK:   %[[NOT:.+]] = "versa.not"(%[[OR]]) : (tensor<4x8xi1>) -> tensor<4x8xi1>
//       CHECK:   %[[SEL:.+]] = "versa.select"(%[[NOT]], %[[A]], %[[B]]) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[BITS:.+]] = "versa.and"(%[[I]], %[[I]]) : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
//       CHECK:   return %[[SEL]], %[[BITS]]
func.func @compare_select_logic(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<4x1xi64>, %m: tensor<4x1xi1>)
    -> (tensor<4x8xf32>, tensor<4x1xi64>) {
  %0 = "versa.compare"(%a, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = "versa.compare"(%i, %i) {predicate = "ne"} : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
  %2 = "versa.and"(%0, %m) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  %3 = "versa.or"(%2, %1) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  %4 = "versa.not"(%3) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  %5 = "versa.select"(%4, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = "versa.and"(%i, %i) : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
  return %5, %6 : tensor<4x8xf32>, tensor<4x1xi64>
}

// -----

// CHECK-LABEL: func.func @indexing
//  CHECK-SAME:   (%[[T:.+]]: tensor<10x16xf32>, %[[IDS:.+]]: tensor<2x5xi64>, %[[X:.+]]: tensor<3x10xf32>)
//       CHECK:   %[[E:.+]] = "versa.gather"(%[[T]], %[[IDS]]) {axis = 0 : i64} : (tensor<10x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
//       CHECK:   %[[P:.+]] = "versa.iota"() {axis = 1 : i64} : () -> tensor<2x5xi64>
//       CHECK:   %[[A:.+]] = "versa.reduce_argmax"(%[[X]]) {axis = -1 : i64} : (tensor<3x10xf32>) -> tensor<3xi64>
//       CHECK:   %[[K:.+]] = "versa.reduce_argmax"(%[[X]]) {axis = 0 : i64, keepdims = true} : (tensor<3x10xf32>) -> tensor<1x10xi64>
//       CHECK:   %[[C:.+]] = "versa.cumsum"(%[[P]]) {axis = 1 : i64} : (tensor<2x5xi64>) -> tensor<2x5xi64>
//       CHECK:   return %[[E]], %[[A]], %[[K]], %[[C]]
func.func @indexing(%t: tensor<10x16xf32>, %ids: tensor<2x5xi64>, %x: tensor<3x10xf32>)
    -> (tensor<2x5x16xf32>, tensor<3xi64>, tensor<1x10xi64>, tensor<2x5xi64>) {
  %0 = "versa.gather"(%t, %ids) {axis = 0 : i64} : (tensor<10x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  %1 = "versa.iota"() {axis = 1 : i64} : () -> tensor<2x5xi64>
  %2 = "versa.reduce_argmax"(%x) {axis = -1 : i64} : (tensor<3x10xf32>) -> tensor<3xi64>
  %3 = "versa.reduce_argmax"(%x) {axis = 0 : i64, keepdims = true} : (tensor<3x10xf32>) -> tensor<1x10xi64>
  %4 = "versa.cumsum"(%1) {axis = 1 : i64} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  return %0, %2, %3, %4 : tensor<2x5x16xf32>, tensor<3xi64>, tensor<1x10xi64>, tensor<2x5xi64>
}

// -----

// An iota sized by an operand's dims (dynamic ones too); -1: a static dim of the result type.
// CHECK-LABEL: func.func @iota_like
//       CHECK:   "versa.iota"(%arg0) {axis = 0 : i64, dims = array<i64: 1>} : (tensor<?x?xi1>) -> tensor<?xi64>
//       CHECK:   "versa.iota"(%arg0) {axis = 1 : i64, dims = array<i64: -1, 0>} : (tensor<?x?xi1>) -> tensor<1x?xf32>
func.func @iota_like(%x: tensor<?x?xi1>) -> (tensor<?xi64>, tensor<1x?xf32>) {
  %0 = "versa.iota"(%x) {axis = 0 : i64, dims = array<i64: 1>} : (tensor<?x?xi1>) -> tensor<?xi64>
  %1 = "versa.iota"(%x) {axis = 1 : i64, dims = array<i64: -1, 0>} : (tensor<?x?xi1>) -> tensor<1x?xf32>
  return %0, %1 : tensor<?xi64>, tensor<1x?xf32>
}

// -----

// conv_transpose2d: the filter is [C, F/groups, KH, KW]; OH = (H - 1) * 2 - 1 - 1 + 3 + 1 = 10.
// CHECK-LABEL: func.func @conv_transpose2d
//       CHECK:   "versa.conv_transpose2d"(%{{.+}}, %{{.+}}) : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
//       CHECK:   "versa.conv_transpose2d"(%{{.+}}, %{{.+}}) {groups = 2 : i64, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x10x10xf32>
func.func @conv_transpose2d(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x6x10x10xf32>) {
  %0 = "versa.conv_transpose2d"(%x, %w) : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  %1 = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x10x10xf32>
  return %0, %1 : tensor<1x3x7x7xf32>, tensor<1x6x10x10xf32>
}

// -----

// scatter (ONNX ScatterND): the last dim of the indices addresses the input's leading dims;
// the reduction defaults to "none" (replace; the last of duplicate indices wins).
// CHECK-LABEL: func.func @scatter
//       CHECK:   %[[R:.+]] = "versa.scatter"(%{{.+}}, %{{.+}}, %{{.+}}) {reduction = "add"} : (tensor<10x16xf32>, tensor<2x5x1xi64>, tensor<2x5x16xf32>) -> tensor<10x16xf32>
//       CHECK:   "versa.scatter"(%[[R]], %{{.+}}, %{{.+}}) : (tensor<10x16xf32>, tensor<3x2xi32>, tensor<3xf32>) -> tensor<10x16xf32>
func.func @scatter(%t: tensor<10x16xf32>, %ids: tensor<2x5x1xi64>, %g: tensor<2x5x16xf32>, %at: tensor<3x2xi32>, %v: tensor<3xf32>) -> tensor<10x16xf32> {
  %0 = "versa.scatter"(%t, %ids, %g) {reduction = "add"} : (tensor<10x16xf32>, tensor<2x5x1xi64>, tensor<2x5x16xf32>) -> tensor<10x16xf32>
  %1 = "versa.scatter"(%0, %at, %v) : (tensor<10x16xf32>, tensor<3x2xi32>, tensor<3xf32>) -> tensor<10x16xf32>
  return %1 : tensor<10x16xf32>
}

// -----

// Quantization (dialects/ops_quant.py): scales and zero points are 0-d (per tensor) or 1-d
// along `axis` (per channel); unsigned bytes are ui8; requantize's clamp bounds are optional.
// CHECK-LABEL: func.func @quantization
//       CHECK:   %[[Q:.+]] = "versa.quantize"(%{{.+}}, %{{.+}}, %{{.+}}) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
//       CHECK:   "versa.dequantize"(%[[Q]], %{{.+}}, %{{.+}}) {axis = 1 : i64} : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xf32>
//       CHECK:   %[[Z:.+]] = "versa.constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
//       CHECK:   "versa.requantize"(%{{.+}}, %{{.+}}, %[[Z]]) {max = 100 : i64, min = -3 : i64} : (tensor<2x3xi32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
func.func @quantization(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>, %acc: tensor<2x3xi32>, %rs: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xi8>) {
  %0 = "versa.quantize"(%x, %s, %z) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  %1 = "versa.dequantize"(%0, %s, %z) {axis = 1 : i64} : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xf32>
  %rz = "versa.constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %2 = "versa.requantize"(%acc, %rs, %rz) {min = -3 : i64, max = 100 : i64} : (tensor<2x3xi32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xi8>
}

// -----

// Integer contractions: 8-bit operands, a 0-d zero point each, an i32 result.
// CHECK-LABEL: func.func @integer_contractions
//       CHECK:   "versa.qmatmul"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<2x4x8xui8>, tensor<8x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x4x5xi32>
//       CHECK:   "versa.qconv2d"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {groups = 2 : i64, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xui8>, tensor<3x3x2x6xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x6x6xi32>
func.func @integer_contractions(%a: tensor<2x4x8xui8>, %b: tensor<8x5xi8>, %za: tensor<ui8>, %zb: tensor<i8>, %x: tensor<1x6x6x4xui8>, %w: tensor<3x3x2x6xi8>) -> (tensor<2x4x5xi32>, tensor<1x6x6x6xi32>) {
  %0 = "versa.qmatmul"(%a, %b, %za, %zb) : (tensor<2x4x8xui8>, tensor<8x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x4x5xi32>
  %1 = "versa.qconv2d"(%x, %w, %za, %zb) {groups = 2 : i64, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xui8>, tensor<3x3x2x6xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x6x6xi32>
  return %0, %1 : tensor<2x4x5xi32>, tensor<1x6x6x6xi32>
}
