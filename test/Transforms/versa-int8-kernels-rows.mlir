// RUN: versa-opt %s --pass-pipeline="builtin.module(versa-fuse,convert-versa-to-linalg,canonicalize,cse,versa-int8-kernels{target=x86-64-v4},canonicalize)" | FileCheck %s

// A linear layer on [B, M, K] lowers to one [B·M, K] x [K, N] matmul; its fused epilogue
// (zero-point terms, scale, bias, a residual) is lowered over [B·M, N] too, every input
// collapsed to match (`fold_rows.py`), so the generic reads the matmul's own result and
// versa-int8-kernels computes it in the kernel: the kernel returns the f32 output, and no i32
// tensor or generic is left in @linear, only the row sums of the input (the weights read
// unsigned: zero point 128) and the expand back to [B, M, N].
// CHECK-LABEL: func.func private @versa_int8_dot_0
//  CHECK-SAME:   tensor<1x1x6x8xi8>
//  CHECK-SAME:   %{{.+}}: tensor<6x1xi32>
//  CHECK-SAME:   %{{.+}}: tensor<6x16xf32>) -> tensor<1x1x6x16xf32>
// CHECK-LABEL: func.func @linear
//       CHECK:   %[[RES:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
//       CHECK:   %[[Y:.+]] = call @versa_int8_dot_0({{.+}}, %[[RES]]) : ({{.+}}) -> tensor<1x1x6x16xf32>
//   CHECK-NOT:   xi32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   tensor.expand_shape %{{.+}} {{\[\[}}0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xf32> into tensor<2x3x16xf32>
func.func @linear(%x: tensor<2x3x8xui8>, %r: tensor<2x3x16xf32>) -> tensor<2x3x16xf32> {
  %w = "versa.constant"() {value = dense<"0xFDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFEFF00010203FDFE"> : tensor<8x16xi8>} : () -> tensor<8x16xi8>
  %za = "versa.constant"() {value = dense<129> : tensor<ui8>} : () -> tensor<ui8>
  %zb = "versa.constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %q = "versa.qmatmul"(%x, %w, %za, %zb) : (tensor<2x3x8xui8>, tensor<8x16xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3x16xi32>
  %c = "versa.cast"(%q) : (tensor<2x3x16xi32>) -> tensor<2x3x16xf32>
  %s = "versa.constant"() {value = dense<0.01> : tensor<1x1x16xf32>} : () -> tensor<1x1x16xf32>
  %m = "versa.mul"(%c, %s) : (tensor<2x3x16xf32>, tensor<1x1x16xf32>) -> tensor<2x3x16xf32>
  %b = "versa.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>} : () -> tensor<16xf32>
  %a = "versa.add"(%m, %b) : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
  %y = "versa.add"(%a, %r) : (tensor<2x3x16xf32>, tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  return %y : tensor<2x3x16xf32>
}
