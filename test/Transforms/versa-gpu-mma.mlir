// RUN: versa-opt %s --split-input-file "--versa-gpu-mma=warps-n=2" | FileCheck %s

// A TF32 tensor-core matmul, spliced in place: 128x128 tiles of C per block of 2x2 warps, a ring
// of 3 padded tiles of A (BK + 8 words a row) and B (BN + 4) in dynamic shared memory filled by
// 16-byte cp.async copies, one barrier per tile, A's fragments as 8-byte loads, rounding to
// TF32, m16n8k8 MMAs.
// CHECK-LABEL: func.func @matmul
//       CHECK:   gpu.launch {{.*}} threads(%{{.*}}) in (%{{.*}} = %c128{{.*}} dynamic_shared_memory_size %c112128_i32
//       CHECK:     memref.view {{.*}} to memref<3x128x40xf32, #gpu.address_space<workgroup>>
//       CHECK:     memref.view {{.*}} to memref<3x32x132xf32, #gpu.address_space<workgroup>>
//       CHECK:     nvgpu.device_async_copy %arg0[{{.*}}], %{{.*}}[%c0, {{.*}}], 4, {{.*}} {bypassL1} : memref<200x132xf32>
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     scf.for
//       CHECK:       nvvm.cp.async.wait.group 1
//       CHECK:       gpu.barrier
//       CHECK:       vector.load {{.*}} : memref<3x128x40xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//       CHECK:       nvvm.convert.float.to.tf32 {{.*}}rna
//       CHECK:       nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
//   CHECK-NOT:   linalg.matmul
func.func @matmul(%a: memref<200x132xf32>, %b: memref<132x260xf32>, %c: memref<200x260xf32>) {
  linalg.matmul ins(%a, %b : memref<200x132xf32>, memref<132x260xf32>) outs(%c : memref<200x260xf32>)
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
