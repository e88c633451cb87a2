// RUN: versa-opt %s --pass-pipeline="builtin.module(versa-fuse,convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v4},canonicalize)" | FileCheck %s

// A fused INT8 group (qconv2d, i32 bias, per-channel requantize with a ReLU's clamp) is one
// conv and one generic after convert-versa-to-linalg; versa-int8-kernels then computes that
// generic on each accumulator vector in the kernel (x86-64-v4: vpmaddwd zmm, 16 lanes), whose
// extra arguments are the generic's inputs, each per-channel one read once per block of rows,
// and whose result is the u8 output (i8 once ui8 is erased): no i32 tensor of the layer, no
// generic after the call. (The input's zero point 128 is 0 once the lowering reads the u8
// activations signed: no column term.) The requantize's clamps take `fastmath<nnan,nsz>` and its
// NaN test is gone (kernels/int8_epilogue_facts.py: f32(acc) · a constant scale is finite, and
// the clamped value only reaches an fptosi). The i32 bias is no argument: the accumulators start
// from it (kernels/int8_epilogue_offsets.py), the packing's start values (384, 256, 128, 0, ...)
// plus the bias (1, 2, 3, ...): no vector add after the products.
// CHECK-LABEL: func.func private @versa_int8_dot_0
//  CHECK-SAME:   %{{.+}}: tensor<1x4x4x8xi8>, %{{.+}}: tensor<1x1x1x4x32xi16>, %{{.+}}: tensor<16xi32>,
//  CHECK-SAME:   %[[SCALE:.+]]: tensor<16xf32>, %[[ZERO:.+]]: tensor<16xi8>)
//  CHECK-SAME:   -> tensor<1x4x4x16xi8>
//       CHECK:   func.call @llvm.x86.avx512.pmaddw.d.512
//       CHECK:   vector.transfer_read %[[SCALE]]
//       CHECK:   vector.transfer_read %[[ZERO]]
//       CHECK:   arith.sitofp %{{.+}} : vector<16xi32> to vector<16xf32>
//       CHECK:   math.roundeven %{{.+}} : vector<16xf32>
//       CHECK:   arith.maximumf %{{.+}}, %{{.+}} fastmath<nnan,nsz> : vector<16xf32>
//       CHECK:   arith.minimumf %{{.+}}, %{{.+}} fastmath<nnan,nsz> : vector<16xf32>
//   CHECK-NOT:   arith.cmpf
//       CHECK:   arith.trunci %{{.+}} : vector<16xi32> to vector<16xi8>
//       CHECK:   vector.transfer_write %{{.+}} : vector<16xi8>, tensor<1x1x4x16xi8>
//   CHECK-NOT:   vector.transfer_read %[[SCALE]]
//       CHECK:   vector.transfer_write %{{.+}} : vector<16xi8>, tensor<1x1x4x16xi8>
// CHECK-LABEL: func.func @conv_requantize
//       CHECK:   %[[START:.+]] = arith.constant dense<[385, 258, 131, 4, -123, {{.+}}]> : tensor<16xi32>
//       CHECK:   %[[Y:.+]] = call @versa_int8_dot_0(%{{.+}}, %{{.+}}, %[[START]], {{.+}}) : ({{.+}}) -> tensor<1x4x4x16xi8>
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   xi32>
//       CHECK:   return %[[Y]] : tensor<1x4x4x16xi8>
func.func @conv_requantize(%x: tensor<1x4x4x8xui8>) -> tensor<1x4x4x16xui8> {
  %w = "versa.constant"() {value = dense<"0xFDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFE"> : tensor<1x1x8x16xi8>} : () -> tensor<1x1x8x16xi8>
  %za = "versa.constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %c = "versa.qconv2d"(%x, %w, %za, %zb) {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xui8>, tensor<1x1x8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x4x16xi32>
  %b = "versa.constant"() {value = dense<[[[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]]]]> : tensor<1x1x1x16xi32>} : () -> tensor<1x1x1x16xi32>
  %a = "versa.add"(%c, %b) : (tensor<1x4x4x16xi32>, tensor<1x1x1x16xi32>) -> tensor<1x4x4x16xi32>
  %s = "versa.constant"() {value = dense<[0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.03]> : tensor<16xf32>} : () -> tensor<16xf32>
  %z = "versa.constant"() {value = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xui8>} : () -> tensor<16xui8>
  %q = "versa.requantize"(%a, %s, %z) {axis = 3 : i64, min = 15 : i64} : (tensor<1x4x4x16xi32>, tensor<16xf32>, tensor<16xui8>) -> tensor<1x4x4x16xui8>
  return %q : tensor<1x4x4x16xui8>
}
