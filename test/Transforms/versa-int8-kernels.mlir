// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4" %s | FileCheck %s
// RUN: versa-opt --versa-int8-kernels="target=x86-64-v3" %s | FileCheck %s --check-prefix=V3

// An i8 matmul with constant weights (read unsigned, as qmatmul's lowering reads them) becomes a
// call of a micro-kernel on filters packed at compile time: x86-64-v4 (AVX-512BW, no VNNI)
// multiplies i16-widened pairs with vpmaddwd zmm, [K/2 = 3 pairs of 64 filters] per panel
// (N = 3 padded to 16 lanes), the result sliced back to N; AVX2 with vpmaddwd ymm (AArch64's
// sdot/udot: versa-int8-kernels-aarch64.mlir).
// CHECK-LABEL: func.func private @versa_int8_dot_0
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: func.call @llvm.x86.avx512.pmaddw.d.512(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// CHECK-LABEL: func.func @matmul
// CHECK: arith.constant dense<{{.*}}> : tensor<1x1x1x3x32xi16>
// CHECK: call @versa_int8_dot_0(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x1x4x5xi8>, tensor<1x1x1x3x32xi16>, tensor<16xi32>) -> tensor<1x1x4x16xi32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 4, 3] [1, 1, 1, 1]
// CHECK-NOT: linalg.matmul
// V3: func.call @llvm.x86.avx2.pmadd.wd(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// V3: call @versa_int8_dot_0(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x1x4x5xi8>, tensor<1x1x1x3x16xi16>, tensor<8xi32>) -> tensor<1x1x4x8xi32>
func.func @matmul(%a: tensor<4x5xi8>) -> tensor<4x3xi32> {
  %b = arith.constant dense<[[1, -2, 3], [4, 5, -6], [7, 8, 9], [-10, 11, 12], [13, 14, -128]]> : tensor<5x3xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x5xi8>, tensor<5x3xi8>) outs(%f : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// A matmul whose weights are an argument is left to the strategies.
// CHECK-LABEL: func.func @weights_argument
// CHECK: linalg.matmul
func.func @weights_argument(%a: tensor<4x5xi8>, %b: tensor<5x3xi8>) -> tensor<4x3xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x3xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x3xi32>) -> tensor<4x3xi32>
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x5xi8>, tensor<5x3xi8>) outs(%f : tensor<4x3xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}
