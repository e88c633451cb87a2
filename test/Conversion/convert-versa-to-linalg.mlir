// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg=split-groups=64 | FileCheck %s --check-prefix=SPLIT

// Binary ops broadcast NumPy-style in the indexing maps: leading dims dropped, size-1 dims → 0.
//   CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
//   CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @add
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x1x4xf32>, %[[B:.+]]: tensor<3x1xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x3x4xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
//  CHECK-SAME:     ins(%[[A]], %[[B]] : tensor<2x1x4xf32>, tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
//       CHECK:   ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[S]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   versa.
func.func @add(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A rank-0 operand reads through an empty map; integers use arith's integer ops.
//   CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @add_i32
//       CHECK:   linalg.generic {indexing_maps = [#{{.+}}, #[[$SCALAR]], #{{.+}}]
//       CHECK:     arith.addi %{{.+}}, %{{.+}} : i32
func.func @add_i32(%a: tensor<4xi32>, %b: tensor<i32>) -> tensor<4xi32> {
  %0 = "versa.add"(%a, %b) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @sub
//       CHECK:   linalg.generic
//       CHECK:     arith.subf
func.func @sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.sub"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @div
//       CHECK:   linalg.generic
//       CHECK:     arith.divf
func.func @div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.div"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer division truncates toward zero.
// CHECK-LABEL: func.func @div_i32
//       CHECK:   linalg.generic
//       CHECK:     arith.divsi %{{.+}}, %{{.+}} : i32
func.func @div_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "versa.div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @max
//       CHECK:   linalg.generic
//       CHECK:     arith.maximumf
func.func @max(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.max"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @min_i32
//       CHECK:   linalg.generic
//       CHECK:     arith.minsi %{{.+}}, %{{.+}} : i32
func.func @min_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "versa.min"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @min
//       CHECK:   linalg.generic
//       CHECK:     arith.minimumf
func.func @min(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.min"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @pow
//       CHECK:   linalg.generic
//       CHECK:     math.powf
func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.pow"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg
//       CHECK:   linalg.generic
//       CHECK:     arith.negf
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_i32
//       CHECK:   %[[ZERO:.+]] = arith.constant 0 : i32
//       CHECK:   linalg.generic
//       CHECK:   ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
//       CHECK:     arith.subi %[[ZERO]], %[[X]] : i32
func.func @neg_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "versa.neg"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @abs
//       CHECK:   linalg.generic
//       CHECK:     math.absf
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A rank-0 elementwise op is a generic with no loops.
//   CHECK-DAG: #[[$EMPTY:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @exp
//       CHECK:   linalg.generic {indexing_maps = [#[[$EMPTY]], #[[$EMPTY]]], iterator_types = []}
//       CHECK:     math.exp
func.func @exp(%x: tensor<f32>) -> tensor<f32> {
  %0 = "versa.exp"(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @log
//       CHECK:   linalg.generic
//       CHECK:     math.log
func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt
//       CHECK:   linalg.generic
//       CHECK:     math.sqrt
func.func @sqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.sqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rsqrt
//       CHECK:   linalg.generic
//       CHECK:     math.rsqrt
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.rsqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @tanh
//       CHECK:   linalg.generic
//       CHECK:     math.tanh
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sigmoid(x) = 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
//       CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
//       CHECK:   linalg.generic
//       CHECK:     %[[N:.+]] = arith.negf
//       CHECK:     %[[E:.+]] = math.exp %[[N]]
//       CHECK:     %[[D:.+]] = arith.addf %[[E]], %[[ONE]]
//       CHECK:     arith.divf %[[ONE]], %[[D]]
func.func @sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   linalg.generic
//       CHECK:     arith.maximumf %{{.+}}, %[[ZERO]] : f32
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @erf
//       CHECK:   linalg.generic
//       CHECK:     math.erf
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.erf"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sin, cos, tan, atan, floor, ceil and trunc: one upstream math op each, on the element.
// CHECK-LABEL: func.func @math_unary
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>)
//       CHECK:   %[[SIN:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[SIN_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[SIN_Y:.+]] = math.sin %[[SIN_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[SIN_Y]] : f32
//       CHECK:   %[[COS:.+]] = linalg.generic {{.+}} ins(%[[SIN]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[COS_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[COS_Y:.+]] = math.cos %[[COS_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[COS_Y]] : f32
//       CHECK:   %[[TAN:.+]] = linalg.generic {{.+}} ins(%[[COS]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[TAN_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[TAN_Y:.+]] = math.tan %[[TAN_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[TAN_Y]] : f32
//       CHECK:   %[[ATAN:.+]] = linalg.generic {{.+}} ins(%[[TAN]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[ATAN_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[ATAN_Y:.+]] = math.atan %[[ATAN_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[ATAN_Y]] : f32
//       CHECK:   %[[FLOOR:.+]] = linalg.generic {{.+}} ins(%[[ATAN]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[FLOOR_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[FLOOR_Y:.+]] = math.floor %[[FLOOR_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[FLOOR_Y]] : f32
//       CHECK:   %[[CEIL:.+]] = linalg.generic {{.+}} ins(%[[FLOOR]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[CEIL_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[CEIL_Y:.+]] = math.ceil %[[CEIL_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[CEIL_Y]] : f32
//       CHECK:   %[[TRUNC:.+]] = linalg.generic {{.+}} ins(%[[CEIL]] : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[TRUNC_IN:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[TRUNC_Y:.+]] = math.trunc %[[TRUNC_IN]] : f32
//  CHECK-NEXT:     linalg.yield %[[TRUNC_Y]] : f32
//       CHECK:   return %[[TRUNC]]
func.func @math_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.sin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.cos"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "versa.tan"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "versa.atan"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "versa.floor"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "versa.ceil"(%4) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "versa.trunc"(%5) : (tensor<4xf32>) -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// -----

// round: to nearest, ties to even (torch.round), not math.round (ties away from zero).
// CHECK-LABEL: func.func @round
//       CHECK:   linalg.generic
//   CHECK-NOT:     math.round {{.+}}
//       CHECK:     math.roundeven %{{.+}} : f32
func.func @round(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.round"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sign: two compares and two selects, -1 / 0 / 1 (NaN fails both compares: 0, as torch.sign);
// signed compares on integers.
// CHECK-LABEL: func.func @sign
//   CHECK-DAG:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
//   CHECK-DAG:   %[[MINUS:.+]] = arith.constant -1.000000e+00 : f32
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   linalg.generic
//       CHECK:     %[[GT:.+]] = arith.cmpf ogt, %{{.+}}, %[[ZERO]] : f32
//       CHECK:     %[[LT:.+]] = arith.cmpf olt, %{{.+}}, %[[ZERO]] : f32
//       CHECK:     %[[NEG:.+]] = arith.select %[[LT]], %[[MINUS]], %[[ZERO]] : f32
//       CHECK:     arith.select %[[GT]], %[[ONE]], %[[NEG]] : f32
//       CHECK:   linalg.generic
//       CHECK:     arith.cmpi sgt
//       CHECK:     arith.cmpi slt
func.func @sign(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "versa.sign"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "versa.sign"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// log1p as Kahan's log(u) · x / (u - 1), u = 1 + x (math.log1p would lower to log(1 + x)).
// CHECK-LABEL: func.func @log1p
//       CHECK:   linalg.generic
//   CHECK-NOT:     math.log1p
//       CHECK:     %[[U:.+]] = arith.addf
//       CHECK:     %[[D:.+]] = arith.subf %[[U]]
//       CHECK:     %[[L:.+]] = math.log %[[U]]
//       CHECK:     %[[Q:.+]] = arith.divf %{{.+}}, %[[D]]
//       CHECK:     arith.mulf %[[L]], %[[Q]]
//       CHECK:     arith.select
//       CHECK:     arith.select
func.func @log1p(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.log1p"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expm1 as Kahan's (u - 1) · x / log(u), u = exp(x); f16 computes in f32 and rounds once.
// CHECK-LABEL: func.func @expm1
//       CHECK:   linalg.generic
//   CHECK-NOT:     math.expm1
//       CHECK:     %[[X:.+]] = arith.extf %{{.+}} : f16 to f32
//       CHECK:     %[[U:.+]] = math.exp %[[X]] : f32
//       CHECK:     %[[D:.+]] = arith.subf %[[U]]
//       CHECK:     %[[L:.+]] = math.log %[[U]] : f32
//       CHECK:     %[[Q:.+]] = arith.divf %[[X]], %[[L]]
//       CHECK:     arith.mulf %[[D]], %[[Q]]
//       CHECK:     arith.truncf %{{.+}} : f32 to f16
func.func @expm1(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "versa.expm1"(%x) : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// In an elementwise group, sin and floor are two more ops of the one generic's body.
// CHECK-LABEL: func.func @fused_math
//       CHECK:   linalg.generic
//       CHECK:     %[[M:.+]] = arith.mulf
//       CHECK:     %[[S:.+]] = math.sin %[[M]] : f32
//       CHECK:     %[[F:.+]] = math.floor %[[S]] : f32
//       CHECK:     linalg.yield %[[F]] : f32
//   CHECK-NOT:   linalg.generic
func.func @fused_math(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.mul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "versa.sin"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = "versa.floor"(%2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "versa.yield"(%3) : (tensor<4x8xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu "none": 0.5 x (1 + erf(x / sqrt(2))), the division as a multiply by sqrt(0.5).
// CHECK-LABEL: func.func @gelu
//       CHECK:   arith.constant 0.707106769 : f32
//       CHECK:   linalg.generic
//   CHECK-NOT:     arith.divf
//       CHECK:     arith.mulf
//       CHECK:     math.erf
//   CHECK-NOT:     math.tanh
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.gelu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gelu "tanh": torch's 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
//   CHECK-DAG:   arith.constant 4.471500e-02 : f32
//   CHECK-DAG:   arith.constant 0.797884583 : f32
//       CHECK:   linalg.generic
//       CHECK:     math.tanh
//   CHECK-NOT:     math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.gelu"(%x) {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @clamp
//   CHECK-DAG:   %[[HI:.+]] = arith.constant 1.000000e+00 : f32
//   CHECK-DAG:   %[[LO:.+]] = arith.constant -1.000000e+00 : f32
//       CHECK:   linalg.generic
//       CHECK:     %[[M:.+]] = arith.maximumf %{{.+}}, %[[LO]]
//       CHECK:     arith.minimumf %[[M]], %[[HI]]
func.func @clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.clamp"(%x) {min = -1.0 : f32, max = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @clamp_min_only
//       CHECK:   linalg.generic
//       CHECK:     arith.maximumf
//   CHECK-NOT:     arith.minimumf
func.func @clamp_min_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.clamp"(%x) {min = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_f32_to_i32
//       CHECK:   linalg.generic
//       CHECK:     arith.fptosi %{{.+}} : f32 to i32
func.func @cast_f32_to_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = "versa.cast"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @cast_i32_to_f32
//       CHECK:   linalg.generic
//       CHECK:     arith.sitofp %{{.+}} : i32 to f32
func.func @cast_i32_to_f32(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = "versa.cast"(%x) : (tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 and bf16 have the same width: the conversion goes through f32.
// CHECK-LABEL: func.func @cast_f16_to_bf16
//       CHECK:   linalg.generic
//       CHECK:     %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
//       CHECK:     arith.truncf %[[W]] : f32 to bf16
func.func @cast_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = "versa.cast"(%x) : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @cast_i32_to_i8
//       CHECK:   linalg.generic
//       CHECK:     arith.trunci %{{.+}} : i32 to i8
func.func @cast_i32_to_i8(%x: tensor<4xi32>) -> tensor<4xi8> {
  %0 = "versa.cast"(%x) : (tensor<4xi32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @matmul
//  CHECK-SAME:   (%[[A:.+]]: tensor<3x5xf32>, %[[B:.+]]: tensor<5x4xf32>)
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<3x4xf32>
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3x4xf32>)
//       CHECK:   %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x5xf32>, tensor<5x4xf32>) outs(%[[INIT]] : tensor<3x4xf32>)
//       CHECK:   return %[[R]]
func.func @matmul(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batch
//       CHECK:   linalg.fill
//       CHECK:   linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<2x3x5xf32>, tensor<2x5x4xf32>)
func.func @matmul_batch(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Equal batch dims of any rank fold into one batch_matmul (the codegen strategy's op).
// CHECK-LABEL: func.func @matmul_batch_4d
//       CHECK:   linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<6x17x8xf32>, tensor<6x8x19xf32>) outs(%{{.+}} : tensor<6x17x19xf32>)
//       CHECK:   tensor.expand_shape {{.*}} into tensor<2x3x17x19xf32>
func.func @matmul_batch_4d(%a: tensor<2x3x17x8xf32>, %b: tensor<2x3x8x19xf32>) -> tensor<2x3x17x19xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<2x3x17x8xf32>, tensor<2x3x8x19xf32>) -> tensor<2x3x17x19xf32>
  return %0 : tensor<2x3x17x19xf32>
}

// -----

// A linear layer on batched rows: the rows fold into one 2-D matmul.
// CHECK-LABEL: func.func @matmul_rows_by_matrix
//       CHECK:   linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<10x12xf32>, tensor<12x33xf32>) outs(%{{.+}} : tensor<10x33xf32>)
func.func @matmul_rows_by_matrix(%x: tensor<2x5x12xf32>, %w: tensor<12x33xf32>) -> tensor<2x5x33xf32> {
  %0 = "versa.matmul"(%x, %w) : (tensor<2x5x12xf32>, tensor<12x33xf32>) -> tensor<2x5x33xf32>
  return %0 : tensor<2x5x33xf32>
}

// -----

// Batch dims that broadcast need a generic: loops (b0, b1, m, n, k).
//   CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
//   CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
//   CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_batch_broadcast
//       CHECK:   %[[INIT:.+]] = linalg.fill
//       CHECK:   linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
//  CHECK-SAME:     outs(%[[INIT]] : tensor<2x4x3x6xf32>)
//       CHECK:   ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
//       CHECK:     %[[P:.+]] = arith.mulf %[[X]], %[[Y]]
//       CHECK:     arith.addf %[[ACC]], %[[P]]
func.func @matmul_batch_broadcast(%a: tensor<2x1x3x5xf32>, %b: tensor<4x5x6xf32>) -> tensor<2x4x3x6xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<2x1x3x5xf32>, tensor<4x5x6xf32>) -> tensor<2x4x3x6xf32>
  return %0 : tensor<2x4x3x6xf32>
}

// -----

// Padding: the border strips of a new tensor filled (top row, left column), then the input
// inserted into the interior (window_builders.pad_spatial).
// CHECK-LABEL: func.func @conv2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<1x3x9x9xf32>
//       CHECK:   %[[TOP:.+]] = tensor.extract_slice %[[E]][0, 0, 0, 0] [1, 3, 1, 9] [1, 1, 1, 1]
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[TOP]] : tensor<1x3x1x9xf32>)
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x3x8x1xf32>)
//       CHECK:   %[[FILL:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 0] [1, 3, 8, 1] [1, 1, 1, 1]
//       CHECK:   %[[PADDED:.+]] = tensor.insert_slice %[[X]] into %[[FILL]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1]
//       CHECK:   linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[PADDED]], %[[W]] : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>)
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv2d_nhwc
//   CHECK-NOT:   tensor.insert_slice
//       CHECK:   linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "versa.conv2d"(%x, %w) {dilations = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// groups > 1: input channel = (f floordiv filters-per-group) * channels-per-group + c.
//   CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 + d5, d3 + d6)>
//   CHECK-DAG: #[[$FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
//   CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_groups
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #[[$FILTER]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
// With split-groups (lower-to-llvm sets it at O2+): one loop over (image, output row, group)
// around a named convolution on its group's channels and filters, filled and written into its
// slice of the output, so the conv codegen strategy takes it (codegen/grouped_conv.py).
// SPLIT-LABEL: func.func @conv2d_groups
//  SPLIT-SAME:   (%[[X:.+]]: tensor<1x4x6x6xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
//       SPLIT:   %[[E:.+]] = tensor.empty() : tensor<1x6x4x4xf32>
//       SPLIT:   %[[R:.+]] = scf.forall (%[[N:.+]], %[[OH:.+]], %[[G:.+]]) in (1, 4, 2) shared_outs(%[[Y:.+]] = %[[E]])
//       SPLIT:     %[[C:.+]] = arith.muli %[[G]], %{{.+}} : index
//       SPLIT:     %[[XG:.+]] = tensor.extract_slice %[[X]][%[[N]], %[[C]], %[[OH]], %{{.+}}] [1, 2, 3, 6] [1, 1, 1, 1]
//       SPLIT:     %[[WG:.+]] = tensor.extract_slice %[[W]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] [3, 2, 3, 3] [1, 1, 1, 1]
//       SPLIT:     %[[YG:.+]] = tensor.extract_slice %[[Y]][%[[N]], %{{.+}}, %[[OH]], %{{.+}}] [1, 3, 1, 4] [1, 1, 1, 1]
//       SPLIT:     %[[Z:.+]] = linalg.fill {{.+}} outs(%[[YG]] : tensor<1x3x1x4xf32>)
//       SPLIT:     %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {{.+}} ins(%[[XG]], %[[WG]] : tensor<1x2x3x6xf32>, tensor<3x2x3x3xf32>) outs(%[[Z]] : tensor<1x3x1x4xf32>)
//       SPLIT:     scf.forall.in_parallel
//       SPLIT:       tensor.parallel_insert_slice %[[CONV]] into %[[Y]][%[[N]], %{{.+}}, %[[OH]], %{{.+}}] [1, 3, 1, 4] [1, 1, 1, 1]
//       SPLIT:   } {versa.group_loop}
//       SPLIT:   return %[[R]]
// More groups than split-groups: one generic all the same.
// SPLIT-LABEL: func.func @conv2d_many_groups
//       SPLIT:   linalg.generic
func.func @conv2d_groups(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}
func.func @conv2d_many_groups(%x: tensor<1x130x3x3xf32>, %w: tensor<65x2x1x1xf32>) -> tensor<1x65x3x3xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 65 : i64} : (tensor<1x130x3x3xf32>, tensor<65x2x1x1xf32>) -> tensor<1x65x3x3xf32>
  return %0 : tensor<1x65x3x3xf32>
}

// -----

// groups > 1 without filters: the result is its (empty) init; filters-per-group = 0 cannot divide f.
// CHECK-LABEL: func.func @conv2d_groups_no_filters
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[Y:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x0x4x4xf32>)
//       CHECK:   return %[[Y]]
func.func @conv2d_groups_no_filters(%x: tensor<1x4x6x6xf32>, %w: tensor<0x2x3x3xf32>) -> tensor<1x0x4x4xf32> {
  %0 = "versa.conv2d"(%x, %w) {groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<0x2x3x3xf32>) -> tensor<1x0x4x4xf32>
  return %0 : tensor<1x0x4x4xf32>
}

// -----

// Max pooling pads with -inf, but only where windows overlap the padding: the output is cut
// into blocks (rows [0, 1) and [1, 3), the same for columns); the three border blocks pool
// small padded copies of the input rows and columns they read, the interior block pools a
// view of the input (no copy), each into its slice of one filled output.
// CHECK-LABEL: func.func @max_pool2d
//       CHECK:   %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[WINDOW:.+]] = tensor.empty() : tensor<3x3xf32>
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<1x2x3x3xf32>)
//       CHECK:   %[[CORNER:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 2, 2, 2]
//       CHECK:   %[[PADDED:.+]] = tensor.insert_slice %[[CORNER]] into %{{.+}}[0, 0, 1, 1] [1, 2, 2, 2]
//       CHECK:   %[[OUT0:.+]] = tensor.extract_slice %[[INIT]][0, 0, 0, 0] [1, 2, 1, 1]
//       CHECK:   linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//  CHECK-SAME:     ins(%[[PADDED]], %[[WINDOW]] : tensor<1x2x3x3xf32>, tensor<3x3xf32>) outs(%[[OUT0]] : tensor<1x2x1x1xf32>)
//       CHECK:   linalg.pooling_nchw_max {{.*}} -> tensor<1x2x1x2xf32>
//       CHECK:   linalg.pooling_nchw_max {{.*}} -> tensor<1x2x2x1xf32>
//       CHECK:   %[[INTERIOR:.+]] = tensor.extract_slice %arg0[0, 0, 1, 1] [1, 2, 5, 5]
//   CHECK-NOT:   tensor.insert_slice %[[INTERIOR]]
//       CHECK:   linalg.pooling_nchw_max {{.*}} ins(%[[INTERIOR]], %[[WINDOW]] : tensor<1x2x5x5xf32>, tensor<3x3xf32>)
//       CHECK:   %[[Y:.+]] = tensor.insert_slice %{{.+}}[0, 0, 1, 1] [1, 2, 2, 2]
//       CHECK:   return %[[Y]]
func.func @max_pool2d(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Average pooling sums, then divides by the count of unpadded elements in each window.
//   CHECK-DAG: #[[$COUNT:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>
// CHECK-LABEL: func.func @avg_pool2d
//   CHECK-DAG:   %[[COUNTS:.+]] = arith.constant dense<{{\[\[\[}}4.000000e+00], [6.000000e+00], [6.000000e+00]], {{\[\[}}6.000000e+00], [9.000000e+00], [9.000000e+00]], {{\[\[}}6.000000e+00], [9.000000e+00], [9.000000e+00]]]> : tensor<3x3x1xf32>
//       CHECK:   linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
//       CHECK:   %[[SUM:.+]] = tensor.insert_slice %{{.+}}[0, 1, 1, 0] [1, 2, 2, 2]
//       CHECK:   linalg.generic {indexing_maps = [#{{.+}}, #[[$COUNT]], #{{.+}}]
//  CHECK-SAME:     ins(%[[SUM]], %[[COUNTS]] : tensor<1x3x3x2xf32>, tensor<3x3x1xf32>)
//       CHECK:     arith.divf
func.func @avg_pool2d(%x: tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, layout = "NHWC"} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// Negative axes count from the back; reduced dims are reduction iterators.
//   CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
//   CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["reduction", "parallel", "reduction"]}
//  CHECK-SAME:     outs(%[[INIT]] : tensor<4xf32>)
//       CHECK:     arith.addf
func.func @reduce_sum(%x: tensor<3x4x5xf32>) -> tensor<4xf32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 0, -1>} : (tensor<3x4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keepdims re-inserts the reduced dims with tensor.expand_shape; integers start at INT_MIN.
// CHECK-LABEL: func.func @reduce_max
//       CHECK:   %[[MIN:.+]] = arith.constant -2147483648 : i32
//       CHECK:   linalg.fill ins(%[[MIN]] : i32)
//       CHECK:   %[[R:.+]] = linalg.generic
//       CHECK:     arith.maxsi
//       CHECK:   tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xi32> into tensor<3x1xi32>
func.func @reduce_max(%x: tensor<3x4xi32>) -> tensor<3x1xi32> {
  %0 = "versa.reduce_max"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<3x4xi32>) -> tensor<3x1xi32>
  return %0 : tensor<3x1xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean
//   CHECK-DAG:   %[[COUNT:.+]] = arith.constant 1.500000e+01 : f32
//       CHECK:   linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "reduction"]
//       CHECK:     arith.addf
//       CHECK:   %[[MEAN:.+]] = linalg.generic
//       CHECK:     arith.divf %{{.+}}, %[[COUNT]]
//       CHECK:   tensor.expand_shape %[[MEAN]] {{\[\[}}0, 1, 2]] output_shape [1, 4, 1] : tensor<4xf32> into tensor<1x4x1xf32>
func.func @reduce_mean(%x: tensor<3x4x5xf32>) -> tensor<1x4x1xf32> {
  %0 = "versa.reduce_mean"(%x) {axes = array<i64: 0, 2>, keepdims = true} : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}

// -----

// Numerically stable: the row max is subtracted before exp.
// CHECK-LABEL: func.func @softmax
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.maximumf
//       CHECK:   linalg.generic
//       CHECK:     arith.subf
//       CHECK:   linalg.generic
//       CHECK:     math.exp
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
//       CHECK:     arith.addf
//       CHECK:   linalg.generic
//       CHECK:     arith.divf
//   CHECK-NOT:   versa.
func.func @softmax(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
//       CHECK:   arith.constant dense<9.99999974E-6> : tensor<f32>
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
//       CHECK:   arith.subf
//       CHECK:   math.sqrt
//       CHECK:   arith.divf
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//   CHECK-NOT:   versa.
func.func @layer_norm(%x: tensor<3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// One generic; the per-channel parameters are indexed by the channel dim.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
//   CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
//       CHECK:   linalg.generic {indexing_maps = [#[[$ID]], #[[$C]], #[[$C]], #[[$C]], #[[$C]], #[[$ID]]]
//       CHECK:   ^bb0(%[[X:.+]]: f32, %[[SCALE:.+]]: f32, %[[BIAS:.+]]: f32, %[[MEAN:.+]]: f32, %[[VAR:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[CENTRED:.+]] = arith.subf %[[X]], %[[MEAN]]
//       CHECK:     %[[SHIFTED:.+]] = arith.addf %[[VAR]], %{{.+}}
//       CHECK:     %[[STD:.+]] = math.sqrt %[[SHIFTED]]
//       CHECK:     %[[NORMED:.+]] = arith.divf %[[CENTRED]], %[[STD]]
//       CHECK:     %[[SCALED:.+]] = arith.mulf %[[NORMED]], %[[SCALE]]
//       CHECK:     arith.addf %[[SCALED]], %[[BIAS]]
func.func @batch_norm(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %0 = "versa.batch_norm"(%x, %s, %b, %m, %v) {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
//       CHECK:   linalg.transpose ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "versa.transpose"(%x) {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
//       CHECK:   %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
//       CHECK:   tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = "versa.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_rank0
//       CHECK:   tensor.collapse_shape %{{.+}} [] : tensor<1x1xf32> into tensor<f32>
//   CHECK-NOT:   tensor.expand_shape
func.func @reshape_rank0(%x: tensor<1x1xf32>) -> tensor<f32> {
  %0 = "versa.reshape"(%x) : (tensor<1x1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

//   CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast_to
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #{{.+}}]
//       CHECK:   ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
//       CHECK:     linalg.yield %[[X]] : f32
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = "versa.broadcast_to"(%x) : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @concat
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[C:.+]]: tensor<2x1xf32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x5xf32>
//       CHECK:   %[[Y0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
//       CHECK:   %[[Y1:.+]] = tensor.insert_slice %[[B]] into %[[Y0]][0, 3] [2, 1] [1, 1]
//       CHECK:   %[[Y2:.+]] = tensor.insert_slice %[[C]] into %[[Y1]][0, 4] [2, 1] [1, 1]
//       CHECK:   return %[[Y2]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x1xf32>) -> tensor<2x5xf32> {
  %0 = "versa.concat"(%a, %b, %c) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// torch.cat of three tensors of different sizes arrives as a chain of two concats: the inner
// one (single use, same axis) is inserted straight into the outer one's tensor, so each input
// is copied once. An inner concat with another use, or along another axis, stays whole.
// CHECK-LABEL: func.func @concat_chain
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[C:.+]]: tensor<2x2xf32>)
//   CHECK-NOT:   tensor<2x4xf32>
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<2x6xf32>
//       CHECK:   %[[Y0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1]
//       CHECK:   %[[Y1:.+]] = tensor.insert_slice %[[B]] into %[[Y0]][0, 3] [2, 1] [1, 1]
//       CHECK:   %[[Y2:.+]] = tensor.insert_slice %[[C]] into %[[Y1]][0, 4] [2, 2] [1, 1]
//       CHECK:   return %[[Y2]]
func.func @concat_chain(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = "versa.concat"(%0, %c) {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @negative_concat_chain_shared
//       CHECK:   tensor.empty() : tensor<2x4xf32>
//       CHECK:   tensor.empty() : tensor<2x6xf32>
//       CHECK:   tensor.insert_slice %{{.+}} into %{{.+}}[0, 0] [2, 4] [1, 1]
func.func @negative_concat_chain_shared(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> (tensor<2x6xf32>, tensor<2x4xf32>) {
  %0 = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = "versa.concat"(%0, %c) {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %1, %0 : tensor<2x6xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice
//       CHECK:   %[[VIEW:.+]] = tensor.extract_slice %{{.+}}[1, 0] [2, 2] [2, 3] : tensor<6x5xf32> to tensor<2x2xf32>
//       CHECK:   linalg.copy {{.*}}ins(%[[VIEW]] : tensor<2x2xf32>)
func.func @slice(%x: tensor<6x5xf32>) -> tensor<2x2xf32> {
  %0 = "versa.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 5, 4>, strides = array<i64: 2, 3>} : (tensor<6x5xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A slice without elements is a tensor.empty: an extract_slice may not start at the end of a dim
// (starts = limits = 4 here) nor anywhere in a dim of size 0, and there is nothing to copy.
// CHECK-LABEL: func.func @slice_empty
//   CHECK-NOT:   tensor.extract_slice
//   CHECK-NOT:   linalg.copy
//       CHECK:   %[[A:.+]] = tensor.empty() : tensor<0x3xf32>
//       CHECK:   %[[B:.+]] = tensor.empty() : tensor<1x1x0xi32>
//       CHECK:   return %[[A]], %[[B]]
func.func @slice_empty(%x: tensor<4x3xf32>, %y: tensor<2x1x0xi32>) -> (tensor<0x3xf32>, tensor<1x1x0xi32>) {
  %0 = "versa.slice"(%x) {starts = array<i64: 4, 0>, limits = array<i64: 4, 3>} : (tensor<4x3xf32>) -> tensor<0x3xf32>
  %1 = "versa.slice"(%y) {starts = array<i64: 1, 0, 0>, limits = array<i64: 2, 1, 0>} : (tensor<2x1x0xi32>) -> tensor<1x1x0xi32>
  return %0, %1 : tensor<0x3xf32>, tensor<1x1x0xi32>
}

// -----

// CHECK-LABEL: func.func @pad
//       CHECK:   %[[VALUE:.+]] = arith.constant 1.500000e+00 : f32
//       CHECK:   %[[FILL:.+]] = linalg.fill ins(%[[VALUE]] : f32) outs(%{{.+}} : tensor<3x5xf32>)
//       CHECK:   tensor.insert_slice %{{.+}} into %[[FILL]][1, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<3x5xf32>
func.func @pad(%x: tensor<2x3xf32>) -> tensor<3x5xf32> {
  %0 = "versa.pad"(%x) {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = 1.5 : f32} : (tensor<2x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @constant
//       CHECK:   %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
//       CHECK:   return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// An elementwise group is one generic over the values it captures; its body is the chain.
//   CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @fused_elementwise
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[R:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[$B]], #{{.+}}]
//  CHECK-SAME:     ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
//       CHECK:     %[[S:.+]] = arith.addf
//       CHECK:     %[[M:.+]] = arith.maximumf %[[S]], %{{.+}}
//       CHECK:     linalg.yield %[[M]] : f32
//       CHECK:   return %[[R]]
//   CHECK-NOT:   linalg.generic
func.func @fused_elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "versa.relu"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "versa.yield"(%2) : (tensor<4x8xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// An epilogue group: the contraction, then one generic that updates its result in place.
// CHECK-LABEL: func.func @fused_epilogue
//       CHECK:   %[[MM:.+]] = linalg.matmul
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.+}} : tensor<16xf32>) outs(%[[MM]] : tensor<4x16xf32>)
//       CHECK:     arith.addf
//   CHECK-NOT:   versa.
func.func @fused_epilogue(%a: tensor<4x8xf32>, %w: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = "versa.add"(%1, %bias) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    "versa.yield"(%2) : (tensor<4x16xf32>) -> ()
  }) {kind = "epilogue"} : () -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
