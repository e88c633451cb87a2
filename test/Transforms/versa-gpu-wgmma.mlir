// RUN: versa-opt %s --split-input-file "--versa-gpu-wgmma=processors=1 block-n=128" | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-gpu-wgmma | FileCheck %s --check-prefix=FIT

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

// -----

// A constant B (a layer's weights) is transposed and rounded to TF32 at compile time, into a
// constant of its own: no transpose kernel runs. 1 + 2^-11 is half of TF32's unit at 1: it
// rounds away from zero, to 1 + 2^-10.
//       CHECK: memref.global "private" constant @weights_tf32_t : memref<64x16xf32> = dense<1.00097656> {alignment = 64 : i64}
// CHECK-LABEL: func.func @constant_b
//       CHECK:   memref.get_global @weights_tf32_t : memref<64x16xf32>
//   CHECK-NOT:   @versa_gpu_wgmma_0_bt
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0_ar::@versa_gpu_wgmma_0_ar
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0
memref.global "private" constant @weights : memref<16x64xf32> = dense<1.00048828125>
func.func @constant_b(%a: memref<64x16xf32>, %c: memref<64x64xf32>) {
  %b = memref.get_global @weights : memref<16x64xf32>
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// C zero-filled right before the matmul (a matmul's init): the fill goes, and the kernel stores
// its results instead of adding them to C. With 132 multiprocessors to fill (an H200's), a
// 512 x 512 C takes 64 x 64 tiles (64 blocks), not 128 x 256 ones (8 blocks).
// CHECK-LABEL: func.func @zero_init
//   CHECK-NOT:   linalg.fill
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0
// FIT-LABEL: gpu.func @versa_gpu_wgmma_0(%{{.*}}: memref<512x64xf32>
//   FIT-NOT:   vector.load %arg2
//       FIT:   vector.store %{{.*}}, %arg2
// FIT-LABEL: func.func @zero_init
//   FIT-NOT:   linalg.fill
//       FIT:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0 blocks in (%c8, %{{.*}}, %{{.*}}) threads in (%c128,
func.func @zero_init(%a: memref<512x64xf32>, %b: memref<64x512xf32>, %c: memref<512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<512x512xf32>)
  linalg.matmul ins(%a, %b : memref<512x64xf32>, memref<64x512xf32>) outs(%c : memref<512x512xf32>)
  return
}

// -----

// bf16 A and B, f32 C: a tile row is 64 elements of K, copied 8 to a chunk, each MMA takes 16 of
// K; Bᵀ is written in bf16 and nothing is rounded.
// CHECK-LABEL: gpu.func @versa_gpu_wgmma_0(%{{.*}}: memref<128x64xbf16>, %{{.*}}: memref<128x64xbf16>, %{{.*}}: memref<128x128xf32>)
//       CHECK:   nvgpu.device_async_copy {{.*}}, 8, {{.*}} {bypassL1} : memref<128x64xbf16> to memref<{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>
//       CHECK:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>, <wrapped>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-LABEL: gpu.func @versa_gpu_wgmma_0_bt(%{{.*}}: memref<64x128xbf16>, %{{.*}}: memref<128x64xbf16>)
//   CHECK-NOT:   nvvm.convert.float.to.tf32
// CHECK-LABEL: func.func @bf16
//   CHECK-NOT:   versa_gpu_wgmma_0_ar
//       CHECK:   gpu.launch_func  @versa_gpu_wgmma_0::@versa_gpu_wgmma_0
func.func @bf16(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xf32>)
  return
}
