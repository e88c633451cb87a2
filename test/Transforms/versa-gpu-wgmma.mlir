// RUN: versa-opt %s --split-input-file --versa-gpu-wgmma | FileCheck %s

// A TF32 matmul on Hopper's warpgroup MMAs: B transposed (and A and Bᵀ rounded to TF32) by
// kernels of their own into new buffers, then a block of two warpgroups per 128x128 tile of C,
// a ring of 4 stages of 128-byte-swizzled tiles filled by cp.async, descriptors with the
// 128-byte swizzle (bit 62) and 1024 bytes between 8-row groups, a wgmma group left in flight.
// CHECK-LABEL: gpu.module @versa_gpu_wgmma_0 {
//       CHECK:   gpu.func @versa_gpu_wgmma_0(%{{.*}}: memref<200x132xf32>, %{{.*}}: memref<260x132xf32>, %{{.*}}: memref<200x260xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
//       CHECK:     gpu.dynamic_shared_memory
//       CHECK:     nvgpu.device_async_copy {{.*}} {bypassL1} : memref<200x132xf32> to memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>>
//       CHECK:     arith.constant 4611686293305360384 : i64
//       CHECK:     scf.for
//       CHECK:       nvvm.cp.async.wait.group 1
//       CHECK:       nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:       gpu.barrier
//       CHECK:       nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 8>, D[<f32>, <one>, <wrapped>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-LABEL: gpu.module @versa_gpu_wgmma_0_bt {
//       CHECK:   gpu.func @versa_gpu_wgmma_0_bt(%{{.*}}: memref<132x260xf32>, %{{.*}}: memref<260x132xf32>) workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>)
//       CHECK:     nvvm.convert.float.to.tf32 {{.*}}rna
// CHECK-LABEL: gpu.module @versa_gpu_wgmma_0_ar {
//       CHECK:     nvvm.convert.float.to.tf32 {{.*}}rna
// CHECK-LABEL: func.func @matmul
//       CHECK:   %[[AR:.*]] = memref.alloc() : memref<200x132xf32>
//       CHECK:   %[[BT:.*]] = memref.alloc() : memref<260x132xf32>
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0_bt::@versa_gpu_wgmma_0_bt blocks in (%{{.*}}) threads in (%{{.*}}) args(%arg1 : memref<132x260xf32>, %[[BT]] : memref<260x132xf32>)
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0_ar::@versa_gpu_wgmma_0_ar {{.*}} args(%arg0 : memref<200x132xf32>, %[[AR]] : memref<200x132xf32>)
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0 blocks in (%c3, %c2, %c1) threads in (%c256, %{{.*}}, %{{.*}})  dynamic_shared_memory_size %c132096_i32 args(%[[AR]] : memref<200x132xf32>, %[[BT]] : memref<260x132xf32>, %arg2 : memref<200x260xf32>)
//   CHECK-NOT:   linalg.matmul
func.func @matmul(%a: memref<200x132xf32>, %b: memref<132x260xf32>, %c: memref<200x260xf32>) {
  linalg.matmul ins(%a, %b : memref<200x132xf32>, memref<132x260xf32>) outs(%c : memref<200x260xf32>)
  return
}

// -----

// A batch matmul: the transpose swaps the last two dimensions; the grid's z runs over the batch.
// CHECK-LABEL: func.func @batched
//       CHECK:   memref.alloc() : memref<3x96x40xf32>
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0 blocks in (%c1, %{{.*}}, %c3)
func.func @batched(%a: memref<3x64x40xf32>, %b: memref<3x40x96xf32>, %c: memref<3x64x96xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x64x40xf32>, memref<3x40x96xf32>) outs(%c : memref<3x64x96xf32>)
  return
}

// -----

// Rows of A that are not whole four-float vectors (K = 66) stay for versa-gpu-matmul.
// CHECK-LABEL: func.func @ragged_k
//       CHECK:   linalg.matmul
func.func @ragged_k(%a: memref<128x66xf32>, %b: memref<66x128xf32>, %c: memref<128x128xf32>) {
  linalg.matmul ins(%a, %b : memref<128x66xf32>, memref<66x128xf32>) outs(%c : memref<128x128xf32>)
  return
}
