// RUN: versa-opt %s --versa-profile-kernels | FileCheck %s
// RUN: versa-opt %s --pass-pipeline='builtin.module(lower-to-llvm{profile=1})' | FileCheck %s --check-prefix=LLVM

// Consecutive ops of one source are one kernel, views and constants are free: a mark after
// each kernel (ids from 1), one at entry (0), and the kernel table on the module.
// CHECK: module attributes {versa.profile = [
// CHECK-SAME: {function = "main", id = 1 : i64, ops = ["linalg.fill", "linalg.copy"], sources = ["layer1.conv", "conv2d"]}
// CHECK-SAME: {function = "main", id = 2 : i64, ops = ["scf.for"], sources = ["relu"]}
// CHECK-SAME: {function = "main", id = 3 : i64, ops = ["memref.copy"], sources = ["line {{[0-9]+}}:3"]}
// CHECK: llvm.mlir.global external @versa_profile_ns(dense<0> : tensor<4xi64>)
// CHECK: llvm.func @versa_profile_mark(%{{.*}}: i64)
// CHECK: llvm.call @clock_gettime
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[E:.+]] = llvm.mlir.constant(0 : i64)
// CHECK-NEXT: llvm.call @versa_profile_mark(%[[E]])
// CHECK: linalg.fill
// CHECK-NEXT: memref.subview
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: %[[K1:.+]] = llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.call @versa_profile_mark(%[[K1]])
// CHECK: scf.for
// CHECK: %[[K2:.+]] = llvm.mlir.constant(2 : i64)
// CHECK-NEXT: llvm.call @versa_profile_mark(%[[K2]])
// CHECK-NEXT: memref.copy
// CHECK-NEXT: %[[K3:.+]] = llvm.mlir.constant(3 : i64)
// CHECK-NEXT: llvm.call @versa_profile_mark(%[[K3]])
// CHECK-NEXT: return

// The marks survive lowering: calls of the mark function in the llvm dialect.
// LLVM-COUNT-4: llvm.call @versa_profile_mark
func.func @main(%a: memref<8xf32>, %b: memref<10xf32>, %c: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32 loc("layer1.conv"("conv2d"("model.py":3:0)))
  linalg.fill ins(%zero : f32) outs(%b : memref<10xf32>) loc("layer1.conv"("conv2d"("model.py":3:0)))
  %inner = memref.subview %b[1] [8] [1] : memref<10xf32> to memref<8xf32, strided<[1], offset: 1>> loc("layer1.conv"("conv2d"("model.py":3:0)))
  linalg.copy ins(%a : memref<8xf32>) outs(%inner : memref<8xf32, strided<[1], offset: 1>>) loc("layer1.conv"("conv2d"("model.py":3:0)))
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %c[%i] : memref<8xf32>
  } loc("relu"("model.py":4:0))
  memref.copy %a, %c : memref<8xf32> to memref<8xf32>
  return
}
