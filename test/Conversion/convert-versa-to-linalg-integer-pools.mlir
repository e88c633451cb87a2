// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg=pool-views=true --canonicalize --cse | FileCheck %s --check-prefix=VIEWS

// i8: linalg's named max pool (a signed max on integers), padded with -128, block by block as
// floats are (pool_regions); the views fold with arith.maxsi.
// CHECK-LABEL: func.func @max_pool_i8_nchw
//       CHECK:   %[[MIN:.+]] = arith.constant -128 : i8
//       CHECK:   linalg.fill ins(%[[MIN]] : i8) outs(%{{.+}} : tensor<1x2x3x3xi8>)
//       CHECK:   linalg.pooling_nchw_max {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x2x3x3xi8>, tensor<3x3xi8>)
//   CHECK-NOT:   arith.xori
// VIEWS-LABEL: func.func @max_pool_i8_nchw
//       VIEWS:   arith.constant -128 : i8
//       VIEWS:   linalg.generic
//       VIEWS:     arith.maxsi %{{.+}}, %{{.+}} : i8
func.func @max_pool_i8_nchw(%x: tensor<1x2x6x6xi8>) -> tensor<1x2x3x3xi8> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xi8>) -> tensor<1x2x3x3xi8>
  return %0 : tensor<1x2x3x3xi8>
}

// -----

// ui8 through named ops: there is no unsigned NCHW pooling op, so the bytes are flipped
// (x ^ 0x80 orders ui8 as i8), pooled signed and flipped back; the ui8 signature becomes i8.
// CHECK-LABEL: func.func @max_pool_ui8_nchw
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x6x6xi8>) -> tensor<1x2x3x3xi8>
//       CHECK:   %[[FLIP:.+]] = arith.constant -128 : i8
//       CHECK:   %[[IN:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x2x6x6xi8>)
//       CHECK:     arith.xori %{{.+}}, %[[FLIP]] : i8
//       CHECK:   %[[P:.+]] = linalg.pooling_nchw_max {{.*}} ins(%[[IN]], %{{.+}} : tensor<1x2x6x6xi8>, tensor<2x2xi8>)
//       CHECK:   %[[Y:.+]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x2x3x3xi8>)
//       CHECK:     arith.xori %{{.+}}, %[[FLIP]] : i8
//       CHECK:   return %[[Y]]
// VIEWS-LABEL: func.func @max_pool_ui8_nchw
//   VIEWS-NOT:   arith.xori
//       VIEWS:     arith.maxui %{{.+}}, %{{.+}} : i8
func.func @max_pool_ui8_nchw(%x: tensor<1x2x6x6xui8>) -> tensor<1x2x3x3xui8> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xui8>) -> tensor<1x2x3x3xui8>
  return %0 : tensor<1x2x3x3xui8>
}

// -----

// ui8 NHWC with views (the CPU at O2+): one reduction over the reshaped bytes, an unsigned max
// from 0 (ui8's minimum); nothing flipped.
// VIEWS-LABEL: func.func @max_pool_ui8_nhwc
//  VIEWS-SAME:   (%[[X:.+]]: tensor<1x8x8x16xi8>) -> tensor<1x4x4x16xi8>
//       VIEWS:   %[[ZERO:.+]] = arith.constant 0 : i8
//       VIEWS:   %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i8) outs(%{{.+}} : tensor<1x4x4x16xi8>)
//       VIEWS:   %[[VIEW:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3, 4], [5]] output_shape [1, 4, 2, 4, 2, 16]
//       VIEWS:   linalg.generic {{.*}} ins(%[[VIEW]] : tensor<1x4x2x4x2x16xi8>) outs(%[[INIT]] : tensor<1x4x4x16xi8>)
//  VIEWS-NEXT:   ^bb0(%[[IN:.+]]: i8, %[[OUT:.+]]: i8):
//  VIEWS-NEXT:     arith.maxui %[[IN]], %[[OUT]] : i8
//   VIEWS-NOT:   arith.xori
// CHECK-LABEL: func.func @max_pool_ui8_nhwc
//       CHECK:   arith.xori
//       CHECK:   linalg.pooling_nhwc_max {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x8x8x16xi8>, tensor<2x2xi8>)
//       CHECK:   arith.xori
func.func @max_pool_ui8_nhwc(%x: tensor<1x8x8x16xui8>) -> tensor<1x4x4x16xui8> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x16xui8>) -> tensor<1x4x4x16xui8>
  return %0 : tensor<1x4x4x16xui8>
}

// -----

// A dynamic H and W: one named pool over the flipped bytes padded with -128 (i8's minimum).
// CHECK-LABEL: func.func @max_pool_ui8_dynamic
//       CHECK:   arith.xori
//       CHECK:   linalg.pooling_nchw_max {{.*}} : tensor<1x3x?x?xi8>, tensor<3x3xi8>)
//       CHECK:   arith.xori
// VIEWS-LABEL: func.func @max_pool_ui8_dynamic
//       VIEWS:   arith.xori
//       VIEWS:   linalg.pooling_nchw_max
func.func @max_pool_ui8_dynamic(%x: tensor<1x3x?x?xui8>) -> tensor<1x3x?x?xui8> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x?x?xui8>) -> tensor<1x3x?x?xui8>
  return %0 : tensor<1x3x?x?xui8>
}
