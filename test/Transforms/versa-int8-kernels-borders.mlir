// RUN: versa-opt %s --pass-pipeline="builtin.module(convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v4},canonicalize)" | FileCheck %s
// RUN: versa-opt %s --pass-pipeline="builtin.module(convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v3},canonicalize)" | FileCheck %s --check-prefix=V3

// A plain qconv2d's zero-point padding is no copy: versa-int8-kernels' dot-product kernel reads
// the unpadded input (kernels/int8_dot_borders.py). Each pixel tile is an scf.if on whether its
// output row and pixels read only inside x: the interior body reads with no checks, the border
// body clamps row and column and selects the fill word (u8 zero point 131, read as the u8 bytes
// and widened for vpmaddwd: two i16 131s, 0x00830083 = 8585347). Nothing in the caller fills
// or inserts before the kernel.
// CHECK-LABEL: func.func private @versa_int8_dot_0(%arg0: tensor<1x12x20x8xi8>
//       CHECK:   %[[FILL:.+]] = arith.constant dense<8585347> : vector<1xi32>
//       CHECK:   scf.if
//   CHECK-NOT:   arith.select
//       CHECK:   llvm.x86.avx512.pmaddw.d.512
//       CHECK:   } else {
//       CHECK:   arith.cmpi ult
//       CHECK:   arith.select %{{.+}}, %{{.+}}, %[[FILL]] : vector<1xi32>
// CHECK-LABEL: func.func @conv3x3(%arg0: tensor<1x12x20x8xi8>)
//   CHECK-NOT:   linalg.fill
//   CHECK-NOT:   tensor.insert_slice
//   CHECK-NOT:   tensor.pad
//       CHECK:   call @versa_int8_dot_0(%arg0,
//   CHECK-NOT:   linalg.conv_2d_nhwc_hwcf
// AVX2 (vpmaddwd ymm): the same reads of the unpadded input.
// V3-LABEL: func.func private @versa_int8_dot_0(%arg0: tensor<1x12x20x8xi8>
//       V3:   %[[FILL:.+]] = arith.constant dense<8585347> : vector<1xi32>
//       V3:   scf.if
//   V3-NOT:   arith.select
//       V3:   llvm.x86.avx2.pmadd.wd
//       V3:   } else {
//       V3:   arith.select %{{.+}}, %{{.+}}, %[[FILL]] : vector<1xi32>
// V3-LABEL: func.func @conv3x3(%arg0: tensor<1x12x20x8xi8>)
//   V3-NOT:   linalg.fill
//   V3-NOT:   tensor.insert_slice
//       V3:   call @versa_int8_dot_0(%arg0,
func.func @conv3x3(%x: tensor<1x12x20x8xui8>) -> tensor<1x12x20x16xi32> {
  %w = "versa.constant"() {value = dense<3> : tensor<3x3x8x16xi8>} : () -> tensor<3x3x8x16xi8>
  %za = "versa.constant"() {value = dense<131> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %za, %zb) {layout = "NHWC", groups = 1 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x12x20x8xui8>, tensor<3x3x8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x12x20x16xi32>
  return %0 : tensor<1x12x20x16xi32>
}
