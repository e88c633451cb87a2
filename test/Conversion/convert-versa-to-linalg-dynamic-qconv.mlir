// qconv2d with a dynamic batch (issue 46) lowers as a static one does: the input padded with
// its zero point in a tensor of the input's batch, an i8 x i8 -> i32 linalg.conv_2d_nhwc_hwcf,
// the zero points' constant column term subtracted after. versa-static-tiles then runs the
// conv one image at a time, static tiles the conv strategy takes (no plain loops), or, with
// constant filters, the int8 kernels (versa-int8-kernels-dynamic.mlir).
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse \
// RUN:   --versa-int8-kernels="target=x86-64-v3" --versa-static-tiles --versa-int8-kernels="target=x86-64-v3" \
// RUN:   --versa-outline-dynamic \
// RUN:   --versa-codegen="target=x86-64-v3 threads=1" --remarks-filter=versa-codegen -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CODEGEN

// CHECK-LABEL: func.func @qconv2d_dynamic_batch(
//  CHECK-SAME:   %[[X:.+]]: tensor<?x8x8x16xi8>
//   CHECK-DAG:   %[[COL:.+]] = arith.constant dense<2160> : tensor<32xi32>
//   CHECK-DAG:   %[[ZX:.+]] = arith.constant 5 : i8
//       CHECK:   %[[N:.+]] = tensor.dim %[[X]], %c0
//       CHECK:   %[[PADDED:.+]] = tensor.empty(%[[N]]) : tensor<?x10x10x16xi8>
//       CHECK:   linalg.fill ins(%[[ZX]] : i8)
//       CHECK:   %[[XP:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 1, 1, 0] [%[[N]], 8, 8, 16] [1, 1, 1, 1]
//       CHECK:   %[[OUT:.+]] = tensor.empty(%[[N]]) : tensor<?x8x8x32xi32>
//       CHECK:   %[[CORE:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XP]], %{{.+}} : tensor<?x10x10x16xi8>, tensor<3x3x16x32xi8>) outs(%{{.+}} : tensor<?x8x8x32xi32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[CORE]], %[[COL]] : tensor<?x8x8x32xi32>, tensor<32xi32>) outs(%[[OUT]] : tensor<?x8x8x32xi32>)
//       CHECK:     arith.subi
// CODEGEN-NOT: no codegen strategy
// CODEGEN: remark: [Passed] versa-codegen | Category:strategy | Reason="tiled by ConvEpilogueStrategy", op="linalg.conv_2d_nhwc_hwcf"
// CODEGEN-NOT: no codegen strategy
func.func @qconv2d_dynamic_batch(%x: tensor<?x8x8x16xi8>) -> tensor<?x8x8x32xi32> {
  %w = "versa.constant"() {value = dense<3> : tensor<3x3x16x32xi8>} : () -> tensor<3x3x16x32xi8>
  %zx = "versa.constant"() {value = dense<5> : tensor<i8>} : () -> tensor<i8>
  %zw = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %zx, %zw) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<?x8x8x16xi8>, tensor<3x3x16x32xi8>, tensor<i8>, tensor<i8>) -> tensor<?x8x8x32xi32>
  return %0 : tensor<?x8x8x32xi32>
}

// -----

// A filter zero point over a dynamic H and W: the window sums (channels summed, then
// pooling_nhwc_sum) are sized from the padded input, H + 2 by W + 2, and the output's
// window counts.
// CHECK-LABEL: func.func @qconv2d_filter_zero_dynamic_hw(
//       CHECK:   %[[CORE:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} outs(%{{.+}} : tensor<1x?x?x6xi32>)
//       CHECK:   %[[CH:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<1x?x?x4xi8>) outs(%{{.+}} : tensor<1x?x?xi32>)
//       CHECK:   %[[WIN:.+]] = linalg.pooling_nhwc_sum {{.+}} ins(%{{.+}}, %{{.+}} : tensor<1x?x?x1xi32>, tensor<3x3xi32>) outs(%{{.+}} : tensor<1x?x?x1xi32>)
//       CHECK:   linalg.generic {{.+}} ins(%[[CORE]], %[[WIN]], %{{.+}} : tensor<1x?x?x6xi32>, tensor<1x?x?x1xi32>, tensor<6xi32>)
func.func @qconv2d_filter_zero_dynamic_hw(%x: tensor<1x?x?x4xi8>, %w: tensor<3x3x4x6xi8>, %z: tensor<i8>) -> tensor<1x?x?x6xi32> {
  %0 = "versa.qconv2d"(%x, %w, %z, %z) {layout = "NHWC", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x?x?x4xi8>, tensor<3x3x4x6xi8>, tensor<i8>, tensor<i8>) -> tensor<1x?x?x6xi32>
  return %0 : tensor<1x?x?x6xi32>
}
