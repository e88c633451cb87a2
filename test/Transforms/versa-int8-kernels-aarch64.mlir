// RUN: versa-opt --versa-int8-kernels="target=aarch64-neon" %s | FileCheck %s
// RUN: versa-opt --versa-int8-kernels="target=aarch64-sve" %s | FileCheck %s

// AArch64 (both targets name +dotprod): an i8 matmul read unsigned (qmatmul's lowering) calls
// udot, an NHWC conv (read signed) sdot, 4 i32 lanes of 4 bytes each. Neither operand changes
// range: no top-bit flip of the activations, start values 0 (x86's vpdpbusd needs both).
// N = 3 is padded to one panel of 4 filters (one vector), K = 5 to 8 (2 groups of 4): each
// group is 4 filters' 4 bytes, filter-major, as sdot/udot's lanes read them.
// CHECK-LABEL: func.func private @versa_int8_dot_1
// CHECK-NOT: arith.xori
// CHECK: func.call @llvm.aarch64.neon.sdot.v4i32.v16i8(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// CHECK-NOT: llvm.aarch64.neon.udot
// CHECK-LABEL: func.func private @versa_int8_dot_0
// CHECK-NOT: arith.xori
// CHECK: func.call @llvm.aarch64.neon.udot.v4i32.v16i8(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// CHECK-NOT: llvm.aarch64.neon.sdot
// CHECK: return
// CHECK-DAG: func.func private @llvm.aarch64.neon.sdot.v4i32.v16i8(vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// CHECK-DAG: func.func private @llvm.aarch64.neon.udot.v4i32.v16i8(vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>
// CHECK-LABEL: func.func @matmul
// CHECK: arith.constant dense<{{\[\[\[\[\[}}1, 4, 7, -10, -2, 5, 8, 11, 3, -6, 9, 12, 0, 0, 0, 0], [13, 0, 0, 0, 14, 0, 0, 0, -128, 0, 0, 0, 0, 0, 0, 0]]]]]> : tensor<1x1x1x2x16xi8>
// CHECK: arith.constant dense<0> : tensor<4xi32>
// CHECK: call @versa_int8_dot_0(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x1x4x5xi8>, tensor<1x1x1x2x16xi8>, tensor<4xi32>) -> tensor<1x1x4x4xi32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 4, 3] [1, 1, 1, 1]
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: tensor<4x5xi8>) -> tensor<4x3xi32> {
  %b = arith.constant dense<[[1, -2, 3], [4, 5, -6], [7, 8, 9], [-10, 11, 12], [13, 14, -128]]> : tensor<5x3xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x5xi8>, tensor<5x3xi8>) outs(%f : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @conv
// CHECK: arith.constant dense<0> : tensor<4xi32>
// CHECK: call @versa_int8_dot_1(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x5x6x3xi8>, tensor<1x2x2x1x16xi8>, tensor<4xi32>) -> tensor<1x4x5x4xi32>
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
func.func @conv(%x: tensor<1x5x6x3xi8>) -> tensor<1x4x5x2xi32> {
  %w = arith.constant dense<[[[[1, -2], [3, 4], [-5, 6]], [[7, 8], [9, -10], [11, 12]]], [[[13, -14], [15, 16], [-17, 18]], [[19, 20], [-128, 127], [21, 22]]]]> : tensor<2x2x3x2xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x5x2xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x4x5x2xi32>) -> tensor<1x4x5x2xi32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x6x3xi8>, tensor<2x2x3x2xi8>) outs(%f : tensor<1x4x5x2xi32>) -> tensor<1x4x5x2xi32>
  return %0 : tensor<1x4x5x2xi32>
}
