// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s

// The quantized ops (passes/versa_to_linalg/lowering/lower_quant.py, lower_qcontract.py).

// quantize, per channel, to ui8: one generic, scale and zero point indexed by the channel;
// the zero point read unsigned (extui), roundeven(x / s) clamped in f32 to [0 - zp, 255 - zp],
// NaN to 0, then + zp; ui8 is erased to i8 in the signature.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
//   CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_per_channel
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3xf32>, %[[S:.+]]: tensor<3xf32>, %[[Z:.+]]: tensor<3xi8>) -> tensor<2x3xi8>
//       CHECK:   linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
//  CHECK-SAME:     ins(%[[X]], %[[S]], %[[Z]] : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) outs(%{{.+}} : tensor<2x3xi8>)
//       CHECK:     %[[ZP:.+]] = arith.extui %{{.+}} : i8 to i32
//       CHECK:     %[[Q:.+]] = arith.divf
//       CHECK:     %[[R:.+]] = math.roundeven %[[Q]] : f32
//       CHECK:     arith.maximumf %[[R]]
//       CHECK:     arith.minimumf
//       CHECK:     arith.cmpf uno, %[[R]], %[[R]] : f32
//       CHECK:     %[[I:.+]] = arith.fptosi %{{.+}} : f32 to i32
//       CHECK:     %[[Y:.+]] = arith.addi %[[I]], %[[ZP]] : i32
//       CHECK:     arith.trunci %[[Y]] : i32 to i8
//   CHECK-NOT:   unrealized_conversion_cast
func.func @quantize_per_channel(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = "versa.quantize"(%x, %s, %z) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// dequantize per tensor: (ext(x) - zp) as f32, times the scale.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0) -> (d0)>
//   CHECK-DAG: #[[$T:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @dequantize
//       CHECK:   linalg.generic {indexing_maps = [#[[$ID]], #[[$T]], #[[$T]], #[[$ID]]]
//       CHECK:     %[[ZP:.+]] = arith.extsi %{{.+}} : i8 to i32
//       CHECK:     %[[X:.+]] = arith.extsi %{{.+}} : i8 to i32
//       CHECK:     %[[D:.+]] = arith.subi %[[X]], %[[ZP]] : i32
//       CHECK:     %[[F:.+]] = arith.sitofp %[[D]] : i32 to f32
//       CHECK:     arith.mulf %[[F]], %{{.+}} : f32
func.func @dequantize(%x: tensor<7xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<7xf32> {
  %0 = "versa.dequantize"(%x, %s, %z) : (tensor<7xi8>, tensor<f32>, tensor<i8>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// requantize with a clamp: bounds min - zp and max - zp; a ui8 constant zero point becomes i8.
// CHECK-LABEL: func.func @requantize
//   CHECK-DAG:   %[[Z:.+]] = arith.constant dense<-128> : tensor<i8>
//   CHECK-DAG:   %[[LO:.+]] = arith.constant 10 : i32
//   CHECK-DAG:   %[[HI:.+]] = arith.constant 200 : i32
//       CHECK:   linalg.generic
//  CHECK-SAME:     ins(%{{.+}}, %{{.+}}, %[[Z]] : tensor<7xi32>, tensor<f32>, tensor<i8>)
//       CHECK:     %[[F:.+]] = arith.sitofp %{{.+}} : i32 to f32
//       CHECK:     %[[P:.+]] = arith.mulf %[[F]], %{{.+}} : f32
//       CHECK:     math.roundeven %[[P]] : f32
//       CHECK:     arith.subi %[[LO]]
//       CHECK:     arith.subi %[[HI]]
func.func @requantize(%x: tensor<7xi32>, %s: tensor<f32>) -> tensor<7xui8> {
  %z = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %0 = "versa.requantize"(%x, %s, %z) {min = 10 : i64, max = 200 : i64} : (tensor<7xi32>, tensor<f32>, tensor<ui8>) -> tensor<7xui8>
  return %0 : tensor<7xui8>
}

// -----

// qmatmul (lower_qcontract.py, zero_points.py): both operands read unsigned (the i8 one's top
// bit flipped, its zero point + 128) by linalg.matmul {cast_unsigned} into i32, then
// acc - zb'·rowsum(a) - za·(colsum(b') - K·zb') in one generic.
// CHECK-LABEL: func.func @qmatmul
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xi8>, %[[B:.+]]: tensor<8x5xi8>, %[[ZA:.+]]: tensor<i8>, %[[ZB:.+]]: tensor<i8>)
//   CHECK-DAG:   %[[K:.+]] = arith.constant 8 : i32
//   CHECK-DAG:   %[[BIT:.+]] = arith.constant -128 : i8
//       CHECK:   %[[IA:.+]] = arith.extui %{{.+}} : i8 to i32
//       CHECK:   %[[SB:.+]] = arith.extsi %{{.+}} : i8 to i32
//       CHECK:   %[[IB:.+]] = arith.subi %[[SB]], %{{.+}} : i32
//       CHECK:   %[[UB:.+]] = linalg.generic
//       CHECK:     arith.xori %{{.+}}, %[[BIT]] : i8
//       CHECK:   %[[CORE:.+]] = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%[[A]], %[[UB]] : tensor<4x8xi8>, tensor<8x5xi8>) outs(%{{.+}} : tensor<4x5xi32>)
//       CHECK:   %[[COL:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]} ins(%[[UB]] : tensor<8x5xi8>)
//       CHECK:     arith.extui
//       CHECK:   %[[KZ:.+]] = arith.muli %[[IB]], %[[K]] : i32
//       CHECK:   %[[ROW:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x8xi8>)
//       CHECK:   %[[ROW2:.+]] = tensor.expand_shape %[[ROW]]
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %[[ROW2]], %[[COL]] : tensor<4x5xi32>, tensor<4x1xi32>, tensor<5xi32>)
//       CHECK:     %[[R:.+]] = arith.muli %{{.+}}, %[[IB]] : i32
//       CHECK:     %[[Y:.+]] = arith.subi %{{.+}}, %[[R]] : i32
//       CHECK:     %[[C:.+]] = arith.subi %{{.+}}, %[[KZ]] : i32
//       CHECK:     %[[CZ:.+]] = arith.muli %[[C]], %[[IA]] : i32
//       CHECK:     arith.subi %[[Y]], %[[CZ]] : i32
func.func @qmatmul(%a: tensor<4x8xui8>, %b: tensor<8x5xi8>, %za: tensor<ui8>, %zb: tensor<i8>) -> tensor<4x5xi32> {
  %0 = "versa.qmatmul"(%a, %b, %za, %zb) : (tensor<4x8xui8>, tensor<8x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// qmatmul with batch dims: batch_matmul {cast_unsigned}, sums per batch.
// CHECK-LABEL: func.func @qmatmul_batch
//       CHECK:   %[[CORE:.+]] = linalg.batch_matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%{{.+}}, %{{.+}} : tensor<6x4x8xi8>, tensor<6x8x5xi8>) outs(%{{.+}} : tensor<6x4x5xi32>)
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %{{.+}}, %{{.+}} : tensor<6x4x5xi32>, tensor<6x4x1xi32>, tensor<6x1x5xi32>)
func.func @qmatmul_batch(%a: tensor<2x3x4x8xi8>, %b: tensor<2x3x8x5xi8>, %z: tensor<i8>) -> tensor<2x3x4x5xi32> {
  %0 = "versa.qmatmul"(%a, %b, %z, %z) : (tensor<2x3x4x8xi8>, tensor<2x3x8x5xi8>, tensor<i8>, tensor<i8>) -> tensor<2x3x4x5xi32>
  return %0 : tensor<2x3x4x5xi32>
}

// -----

// qmatmul with a dynamic M (a served model's rows): the same linalg.matmul {cast_unsigned}, the
// zero-point terms sized from the lhs (versa-static-tiles then cuts it into static tiles).
// CHECK-LABEL: func.func @qmatmul_dynamic_rows
//  CHECK-SAME:   (%[[A:.+]]: tensor<?x8xi8>
//       CHECK:   %[[M:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x8xi8>
//       CHECK:   %[[INIT:.+]] = tensor.empty(%[[M]]) : tensor<?x5xi32>
//       CHECK:   %[[CORE:.+]] = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%{{.+}}, %{{.+}} : tensor<?x8xi8>, tensor<8x5xi8>) outs(%{{.+}} : tensor<?x5xi32>)
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<?x8xi8>)
//       CHECK:   tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [%{{.+}}, 1] : tensor<?xi32> into tensor<?x1xi32>
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %{{.+}}, %{{.+}} : tensor<?x5xi32>, tensor<?x1xi32>, tensor<5xi32>)
//   CHECK-NOT:   quantized_matmul
func.func @qmatmul_dynamic_rows(%a: tensor<?x8xi8>, %b: tensor<8x5xi8>, %za: tensor<i8>, %zb: tensor<i8>) -> tensor<?x5xi32> {
  %0 = "versa.qmatmul"(%a, %b, %za, %zb) : (tensor<?x8xi8>, tensor<8x5xi8>, tensor<i8>, tensor<i8>) -> tensor<?x5xi32>
  return %0 : tensor<?x5xi32>
}

// -----

// A dynamic M under batch dims folds into the matmul's rows ([2, ?, 8] → [2·?, 8]) and back.
// CHECK-LABEL: func.func @qmatmul_dynamic_folded_rows
//       CHECK:   %[[CORE:.+]] = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%{{.+}}, %{{.+}} : tensor<?x8xi8>, tensor<8x5xi8>) outs(%{{.+}} : tensor<?x5xi32>)
//       CHECK:   %[[Y:.+]] = linalg.generic {{.+}} ins(%[[CORE]], %{{.+}}, %{{.+}} : tensor<?x5xi32>, tensor<?x1xi32>, tensor<5xi32>)
//       CHECK:   tensor.expand_shape %{{.+}} {{\[\[}}0, 1, 2]] output_shape [2, %{{.+}}, 5] : tensor<?xi32> into tensor<2x?x5xi32>
func.func @qmatmul_dynamic_folded_rows(%a: tensor<2x?x8xi8>, %b: tensor<8x5xi8>, %z: tensor<i8>) -> tensor<2x?x5xi32> {
  %0 = "versa.qmatmul"(%a, %b, %z, %z) : (tensor<2x?x8xi8>, tensor<8x5xi8>, tensor<i8>, tensor<i8>) -> tensor<2x?x5xi32>
  return %0 : tensor<2x?x5xi32>
}

// -----

// A dynamic K or N (the weights' dims) → linalg.quantized_matmul, sized from the operands.
// CHECK-LABEL: func.func @qmatmul_dynamic_columns
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xi8>, %[[B:.+]]: tensor<8x?xi8>
//       CHECK:   %[[N:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<8x?xi8>
//       CHECK:   tensor.empty(%[[N]]) : tensor<4x?xi32>
//       CHECK:   linalg.quantized_matmul ins(%[[A]], %[[B]], %{{.+}}, %{{.+}} : tensor<4x8xi8>, tensor<8x?xi8>, i32, i32) outs(%{{.+}} : tensor<4x?xi32>)
func.func @qmatmul_dynamic_columns(%a: tensor<4x8xi8>, %b: tensor<8x?xi8>, %z: tensor<i8>) -> tensor<4x?xi32> {
  %0 = "versa.qmatmul"(%a, %b, %z, %z) : (tensor<4x8xi8>, tensor<8x?xi8>, tensor<i8>, tensor<i8>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}

// -----

// qconv2d NHWC: operands read signed, the input padded with its zero point, linalg.conv_2d_nhwc_hwcf
// into i32; zw = 0 and constant weights and zx: the zero points are one folded constant per filter,
// za·Σ(w) (zx = 130 read signed is 2; the filter sums are 16 and 16).
// CHECK-LABEL: func.func @qconv2d
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x6x6x4xi8>) -> tensor<1x8x6x2xi32>
//   CHECK-DAG:   %[[COL:.+]] = arith.constant dense<32> : tensor<2xi32>
//   CHECK-DAG:   %[[PAD:.+]] = arith.constant 2 : i8
//   CHECK-DAG:   %[[W:.+]] = arith.constant dense<{{.+}}> : tensor<1x1x4x2xi8>
//       CHECK:   %[[SX:.+]] = linalg.generic
//       CHECK:     arith.xori
//       CHECK:   linalg.fill ins(%[[PAD]] : i8)
//       CHECK:   %[[XP:.+]] = tensor.insert_slice %[[SX]] into %{{.+}}[0, 1, 0, 0] [1, 6, 6, 4] [1, 1, 1, 1] : tensor<1x6x6x4xi8> into tensor<1x8x6x4xi8>
//       CHECK:   %[[CORE:.+]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XP]], %[[W]] : tensor<1x8x6x4xi8>, tensor<1x1x4x2xi8>) outs(%{{.+}} : tensor<1x8x6x2xi32>)
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %[[COL]] : tensor<1x8x6x2xi32>, tensor<2xi32>)
//   CHECK-NOT:   linalg.pooling
func.func @qconv2d(%x: tensor<1x6x6x4xui8>) -> tensor<1x8x6x2xi32> {
  %w = "versa.constant"() {value = dense<[[[[1, -2], [3, 4], [5, 6], [7, 8]]]]> : tensor<1x1x4x2xi8>} : () -> tensor<1x1x4x2xi8>
  %zx = "versa.constant"() {value = dense<130> : tensor<ui8>} : () -> tensor<ui8>
  %zw = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %zx, %zw) {layout = "NHWC", padding = array<i64: 1, 0, 1, 0>} : (tensor<1x6x6x4xui8>, tensor<1x1x4x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x8x6x2xi32>
  return %0 : tensor<1x8x6x2xi32>
}

// -----

// qconv2d with a filter zero point: the window sums of the padded input (channels summed,
// then pooling_nhwc_sum) times zw.
// CHECK-LABEL: func.func @qconv2d_filter_zero
//       CHECK:   %[[CORE:.+]] = linalg.conv_2d_nhwc_hwcf
//       CHECK:   %[[CH:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
//       CHECK:   %[[WIN:.+]] = linalg.pooling_nhwc_sum {{.+}} ins(%{{.+}}, %{{.+}} : tensor<1x8x8x1xi32>, tensor<3x3xi32>) outs(%{{.+}} : tensor<1x6x6x1xi32>)
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %[[WIN]], %{{.+}} : tensor<1x6x6x6xi32>, tensor<1x6x6x1xi32>, tensor<6xi32>)
func.func @qconv2d_filter_zero(%x: tensor<1x6x6x4xi8>, %w: tensor<3x3x4x6xi8>, %z: tensor<i8>) -> tensor<1x6x6x6xi32> {
  %0 = "versa.qconv2d"(%x, %w, %z, %z) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xi8>, tensor<3x3x4x6xi8>, tensor<i8>, tensor<i8>) -> tensor<1x6x6x6xi32>
  return %0 : tensor<1x6x6x6xi32>
}

// -----

// Grouped (and depthwise) NCHW: the group split out of the channels, conv_2d_ngchw_gfchw_q,
// the result's group dims collapsed back.
// CHECK-LABEL: func.func @qconv2d_groups
//       CHECK:   %[[XG:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 4, 1, 5, 5] : tensor<1x4x5x5xi8> into tensor<1x4x1x5x5xi8>
//       CHECK:   %[[WG:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [4, 2, 1, 3, 3] : tensor<8x1x3x3xi8> into tensor<4x2x1x3x3xi8>
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_ngchw_gfchw_q {{.+}} ins(%[[XG]], %[[WG]], %{{.+}}, %{{.+}} : tensor<1x4x1x5x5xi8>, tensor<4x2x1x3x3xi8>, i32, i32) outs(%{{.+}} : tensor<1x4x2x3x3xi32>)
//       CHECK:   tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x4x2x3x3xi32> into tensor<1x8x3x3xi32>
func.func @qconv2d_groups(%x: tensor<1x4x5x5xi8>, %w: tensor<8x1x3x3xi8>, %z: tensor<i8>) -> tensor<1x8x3x3xi32> {
  %0 = "versa.qconv2d"(%x, %w, %z, %z) {groups = 4 : i64} : (tensor<1x4x5x5xi8>, tensor<8x1x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x8x3x3xi32>
  return %0 : tensor<1x8x3x3xi32>
}
