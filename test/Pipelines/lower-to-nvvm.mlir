// RUN: versa-opt %s --lower-to-nvvm | FileCheck %s
// RUN: versa-opt %s --target nvptx-sm80 --lower-to-nvvm | FileCheck %s
// RUN: versa-opt %s --lower-to-nvvm='chip=sm_80 block=128' | FileCheck %s --check-prefix=B128
// RUN: not versa-opt %s --lower-to-nvvm='chip=sm_70' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not versa-opt %s --target aarch64-neon --lower-to-nvvm 2>&1 | FileCheck %s --check-prefix=CHIP

// The host keeps buffers and static launches; results are the caller's buffers (out-params).
// CHECK-LABEL: func.func @bias_exp(
//  CHECK-SAME:     %[[A:.*]]: memref<64x100xf32>, %[[B:.*]]: memref<100xf32>, %[[OUT:.*]]: memref<64x100xf32>)
//   CHECK-DAG:   %[[GRID:.*]] = arith.constant 25 : index
//   CHECK-DAG:   %[[BLOCK:.*]] = arith.constant 256 : index
//       CHECK:   gpu.launch_func @[[K0:.*]]::@{{.*}} blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[BLOCK]], %{{.*}}, %{{.*}}) args(%[[A]] : memref<64x100xf32>, %[[B]] : memref<100xf32>
//       CHECK:   gpu.launch_func
//  CHECK-SAME:     %[[OUT]] : memref<64x100xf32>
//   CHECK-NOT:   memref.copy
//       CHECK:   return
// Kernels are NVVM: thread and block ids from PTX special registers, math from libdevice.
//       CHECK: gpu.module @[[K0]]
//       CHECK:   llvm.func @{{.*}}(%{{.*}}: !llvm.ptr
//  CHECK-SAME:     nvvm.kernel
//  CHECK-SAME:     nvvm.maxntid = array<i32: 256, 1, 1>
//   CHECK-DAG:     nvvm.read.ptx.sreg.ctaid.x
//   CHECK-DAG:     nvvm.read.ptx.sreg.tid.x
//       CHECK:     llvm.fadd
//       CHECK: gpu.module
//       CHECK:   llvm.func @__nv_expf(f32) -> f32
//       CHECK:     llvm.call @__nv_expf
//   CHECK-NOT:   scf.
//   CHECK-NOT:   memref.load
// B128: nvvm.maxntid = array<i32: 128, 1, 1>
// CHIP: error: 'lower-to-nvvm' chip '{{.*}}' is not one of sm_80, sm_90
func.func @bias_exp(%a: tensor<64x100xf32>, %b: tensor<100xf32>) -> tensor<64x100xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<64x100xf32>, tensor<100xf32>) -> tensor<64x100xf32>
  %1 = "versa.exp"(%0) : (tensor<64x100xf32>) -> tensor<64x100xf32>
  return %1 : tensor<64x100xf32>
}
