// RUN: versa-opt %s --pass-pipeline="builtin.module(convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v4},canonicalize)" | FileCheck %s
// RUN: versa-opt %s --pass-pipeline="builtin.module(convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v3},canonicalize)" | FileCheck %s --check-prefix=V3

// A depthwise qconv2d's zero-point padding is no copy: the lowering pads the input with its
// zero point (fills and an insert_slice), and versa-int8-kernels' depthwise kernel reads the
// unpadded input instead (kernels/int8_borders.py), a tap outside it the fill byte: rows of a
// border block (scf.if on the block index, the interior blocks without checks) select it, an
// outside column is a constant interleaved vector. Nothing in the caller fills or inserts.
// CHECK: #[[COL:.+]] = affine_map<(d0) -> (8, d0 * 16)>
// The second function's kernel (defined first): 24 channels in two blocks of 16, the second
// starting at channel 8 (an overlap, not a channel-padded copy), the fill byte -7 read signed.
// CHECK-LABEL: func.func private @versa_int8_dot_1(%arg0: tensor<1x11x9x24xi8>
//  CHECK-SAME:   -> tensor<1x6x5x24xi32>
//   CHECK-DAG:   arith.constant dense<-7> : vector<16xi8>
//   CHECK-DAG:   arith.constant dense<-7> : vector<32xi16>
//   CHECK-NOT:   tensor.pad
//       CHECK:   affine.min #[[COL]](%{{.+}})
//       CHECK:   return
// u8 input, zero point 131: the kernel reads the u8 bytes (no flip), the fill byte 131 (-125
// as i8), widened (extui) to i16 for vpmaddwd: 131.
// CHECK-LABEL: func.func private @versa_int8_dot_0(%arg0: tensor<1x12x10x16xi8>
//   CHECK-DAG:   %[[ROW:.+]] = arith.constant dense<-125> : vector<16xi8>
//   CHECK-DAG:   arith.constant dense<131> : vector<32xi16>
//       CHECK:   scf.if
//   CHECK-NOT:   arith.select
//       CHECK:   } else {
//       CHECK:   arith.cmpi ult
//       CHECK:   arith.select %{{.+}}, %{{.+}}, %[[ROW]] : vector<16xi8>
// CHECK-LABEL: func.func @stride1(%arg0: tensor<1x12x10x16xi8>)
//   CHECK-NOT:   linalg.fill
//   CHECK-NOT:   tensor.insert_slice
//   CHECK-NOT:   tensor.pad
//       CHECK:   call @versa_int8_dot_0(%arg0,
//   CHECK-NOT:   linalg.depthwise_conv_2d_nhwc_hwc
// AVX2 (8 lanes, one output row per block): the same reads of the unpadded input.
// V3-LABEL: func.func private @versa_int8_dot_0(%arg0: tensor<1x12x10x16xi8>
//   V3-DAG:   %[[ROW:.+]] = arith.constant dense<-125> : vector<8xi8>
//   V3-DAG:   arith.constant dense<131> : vector<16xi16>
//       V3:   scf.if
//       V3:   arith.select %{{.+}}, %{{.+}}, %[[ROW]] : vector<8xi8>
//       V3:   llvm.x86.avx2.pmadd.wd
// V3-LABEL: func.func @stride1(%arg0: tensor<1x12x10x16xi8>)
//   V3-NOT:   linalg.fill
//   V3-NOT:   tensor.insert_slice
//       V3:   call @versa_int8_dot_0(%arg0,
func.func @stride1(%x: tensor<1x12x10x16xui8>) -> tensor<1x12x10x16xi32> {
  %w = "versa.constant"() {value = dense<3> : tensor<3x3x1x16xi8>} : () -> tensor<3x3x1x16xi8>
  %za = "versa.constant"() {value = dense<131> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %za, %zb) {layout = "NHWC", groups = 16 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x12x10x16xui8>, tensor<3x3x1x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x12x10x16xi32>
  return %0 : tensor<1x12x10x16xi32>
}

// i8 input, zero point -7, a 5x5 window padded by 2 at stride 2 (odd sizes, 24 channels: not
// a multiple of 16 lanes): the fill byte -7, read signed (extsi), no padded copy either (its
// kernel comes first in the output: see the top).
// CHECK-LABEL: func.func @stride2_5x5(%arg0: tensor<1x11x9x24xi8>)
//   CHECK-NOT:   linalg.fill
//   CHECK-NOT:   tensor.insert_slice
//       CHECK:   call @versa_int8_dot_1(%arg0,
// V3-LABEL: func.func @stride2_5x5(%arg0: tensor<1x11x9x24xi8>)
//   V3-NOT:   tensor.insert_slice
//       V3:   call @versa_int8_dot_1(%arg0,
func.func @stride2_5x5(%x: tensor<1x11x9x24xi8>) -> tensor<1x6x5x24xi32> {
  %w = "versa.constant"() {value = dense<-2> : tensor<5x5x1x24xi8>} : () -> tensor<5x5x1x24xi8>
  %za = "versa.constant"() {value = dense<-7> : tensor<i8>} : () -> tensor<i8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %0 = "versa.qconv2d"(%x, %w, %za, %zb) {layout = "NHWC", groups = 24 : i64, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x11x9x24xi8>, tensor<5x5x1x24xi8>, tensor<i8>, tensor<i8>) -> tensor<1x6x5x24xi32>
  return %0 : tensor<1x6x5x24xi32>
}
