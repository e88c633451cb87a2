// RUN: versa-opt %s --versa-gpu-matmul='tile=64 k-step=16' | FileCheck %s
// RUN: versa-opt %s --versa-gpu-matmul --inline --symbol-dce | FileCheck %s --check-prefix=INLINED
// RUN: not versa-opt %s --versa-gpu-matmul='tile=40' 2>&1 | FileCheck %s --check-prefix=BAD

// An f32 matmul on buffers becomes a call of a kernel template specialised for its shapes:
// 64x64 tiles per block (2 x 3 blocks here, ragged), A and B staged through shared memory in
// K steps of 16, a 4x4 register tile of fused multiply-adds per thread, guarded stores.
// CHECK-LABEL: func.func private @versa_gpu_matmul_0(
//  CHECK-SAME:     memref<100x70xf32>, %{{.*}}: memref<70x130xf32>, %{{.*}}: memref<100x130xf32>)
//   CHECK-DAG:   %[[GX:.*]] = arith.constant 3 : index
//   CHECK-DAG:   %[[GY:.*]] = arith.constant 2 : index
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[GX]], {{.*}} = %[[GY]], {{.*}}) threads
//  CHECK-SAME:     workgroup(%{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>)
//       CHECK:     scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
//       CHECK:       gpu.barrier
//       CHECK:       scf.for
//  CHECK-COUNT-16:     math.fma
//       CHECK:       gpu.barrier
//       CHECK:     scf.if
//       CHECK:       arith.addf
//       CHECK:       memref.store
// CHECK-LABEL: func.func @mm
//       CHECK:   call @versa_gpu_matmul_0(%arg0, %arg1, %arg2)
//   CHECK-NOT:   linalg.matmul
// Batch matmuls get the batch as the grid's z; f64 and strided operands stay linalg.
//       CHECK:   call @versa_gpu_matmul_1
//       CHECK:   linalg.matmul ins({{.*}}f64
// The default tiles (the nvptx targets'): 128x128 per block, K step 8, 8x8 per thread.
// INLINED-NOT: func.func private
// INLINED: gpu.launch
// INLINED-SAME: workgroup(%{{.*}} : memref<8x128xf32, #gpu.address_space<workgroup>>
// INLINED-COUNT-64: math.fma
// BAD: error: 'versa-gpu-matmul' tile 40 / k-step 8 do not fit 16x16 threads
func.func @mm(%a: memref<100x70xf32>, %b: memref<70x130xf32>, %c: memref<100x130xf32>,
              %x: memref<3x8x16xf32>, %y: memref<3x16x4xf32>, %z: memref<3x8x4xf32>,
              %p: memref<4x4xf64>, %q: memref<4x4xf64>, %r: memref<4x4xf64>) {
  linalg.matmul ins(%a, %b : memref<100x70xf32>, memref<70x130xf32>) outs(%c : memref<100x130xf32>)
  linalg.batch_matmul ins(%x, %y : memref<3x8x16xf32>, memref<3x16x4xf32>) outs(%z : memref<3x8x4xf32>)
  linalg.matmul ins(%p, %q : memref<4x4xf64>, memref<4x4xf64>) outs(%r : memref<4x4xf64>)
  return
}
