// RUN: versa-opt %s --split-input-file --versa-gpu-mma | FileCheck %s

// A TF32 tensor-core matmul: 128x128 tiles of C per block of 8 warps, padded shared tiles of
// A (BK + 4 words a row) and B (BN + 8), 16-byte global loads, rounding to TF32, m16n8k8 MMAs.
// CHECK-LABEL: func.func private @versa_gpu_mma_0
//       CHECK:   gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, {{.*}} workgroup(%{{.*}} : memref<128x36xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x136xi32, #gpu.address_space<workgroup>>)
//       CHECK:     vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<200x132xf32>, vector<4xf32>
//       CHECK:     scf.for
//       CHECK:       nvvm.convert.float.to.tf32 {{.*}}rna
//       CHECK:       gpu.barrier
//       CHECK:       nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// CHECK-LABEL: func.func @matmul
//       CHECK:   call @versa_gpu_mma_0(%arg0, %arg1, %arg2)
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
