// RUN: versa-opt %s --convert-versa-to-linalg --versa-static-tiles | FileCheck %s
// RUN: versa-opt %s --convert-versa-to-linalg --versa-static-tiles --versa-outline-dynamic \
// RUN:   --versa-codegen="target=x86-64-v4 threads=1" --remarks-filter=versa-codegen -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CODEGEN

// A grouped conv (4 groups of 2 channels) over a dynamic batch, H and W lowers to one generic
// marked as a window op (versa.window); versa-static-tiles cuts it as it does a named conv
// (one image, 8 output rows x 32 columns, reading a 17x65 window of the padded input for
// stride 2), and builds each tile as the static lowering builds a grouped conv: a loop over
// (image, row, group) around a named conv on the group's channels.
// CHECK-LABEL: func.func private @grouped__group0__tile1
//       CHECK:   tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, 0] [1, 17, 65, 8] [1, 1, 1, 1] : tensor<?x?x?x8xf32> to tensor<1x17x65x8xf32>
//       CHECK:   scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 8, 4)
//       CHECK:     linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x3x65x2xf32>, tensor<3x3x2x2xf32>) outs(%{{.+}} : tensor<1x1x32x2xf32>)
//       CHECK:   } {versa.group_loop}
// CHECK-LABEL: func.func @grouped
//   CHECK-NOT:   linalg.generic
//       CHECK:   call @grouped__group0(

// Every tile is static and the grouped conv strategy takes it (none is left to plain loops).
// CODEGEN-NOT: no codegen strategy
// CODEGEN: remark: [Passed] versa-codegen | Category:strategy | Reason="tiled by GroupedConvStrategy", op="linalg.conv_2d_nhwc_hwcf"
// CODEGEN-NOT: no codegen strategy
func.func @grouped(%x: tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32> {
  %w = "versa.constant"() {value = dense<0.5> : tensor<3x3x2x8xf32>} : () -> tensor<3x3x2x8xf32>
  %y = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64, layout = "NHWC"} : (tensor<?x?x?x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x?x?x8xf32>
  return %y : tensor<?x?x?x8xf32>
}
