// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v3 strict=1' | FileCheck %s --check-prefix=V3
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v3 strict=1' | FileCheck %s --check-prefix=V3-THREADS
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v4 strict=1' | FileCheck %s --check-prefix=V4

// A matmul whose M is not a multiple of the register tile's rows (197 = 49 x 4 + 1 on AVX2,
// 24 x 8 + 5 on AVX-512): the last M % mr rows are split off (matmul_rest.py). The main part
// is whole mr-row tiles whose accumulators stay in registers across the k loop; the rest is one
// static tile of all its rows (1 on AVX2, 5 on AVX-512) by columns of a power of two of
// vectors, unmasked, its accumulators in registers across its own k loop. Before, the rest
// was a masked 4-row tile read and written through memory at every k step.

// V3-LABEL: func.func @ragged_rows
//       V3:   tensor.extract_slice %{{.*}}[0, 0] [196, 256] [1, 1] : tensor<197x256xf32> to tensor<196x256xf32>
//       V3:   scf.for {{.*}} -> (vector<4x16xf32>)
//       V3:     vector.fma {{.*}} : vector<16xf32>
//       V3:   tensor.extract_slice %{{.*}}[196, 0] [1, 256] [1, 1] : tensor<197x256xf32> to tensor<1x256xf32>
//   V3-NOT:   vector.create_mask
//       V3:   scf.for {{.*}} -> (vector<1x64xf32>)
//   V3-NOT:   vector.create_mask
//       V3:     vector.fma {{.*}} : vector<64xf32>
//   V3-NOT:   linalg.matmul
//       V3:   return

// Threads over columns: the split is inside each thread's share (128 columns).
// V3-THREADS-LABEL: func.func @ragged_rows
//       V3-THREADS:   scf.forall
//       V3-THREADS:     tensor.extract_slice %{{.*}}[0, 0] [196, 256] [1, 1] : tensor<197x256xf32> to tensor<196x256xf32>
//       V3-THREADS:     scf.for {{.*}} -> (vector<4x16xf32>)
//       V3-THREADS:     tensor.extract_slice %{{.*}}[196, 0] [1, 256] [1, 1] : tensor<197x256xf32> to tensor<1x256xf32>
//       V3-THREADS:     scf.for {{.*}} -> (tensor<1x128xf32>)
//       V3-THREADS:       scf.for {{.*}} -> (vector<1x64xf32>)
//   V3-THREADS-NOT:   linalg.matmul

// AVX-512: 8-row tiles, 192 rows of them in blocks of 64 (no ragged block left: no peeled
// loop and no mask in the main part), then the 5 rows left as one 5 x 32 tile.
// V4-LABEL: func.func @ragged_rows
//       V4:   tensor.extract_slice %{{.*}}[0, 0] [192, 256] [1, 1] : tensor<197x256xf32> to tensor<192x256xf32>
//       V4:   tensor.empty() : tensor<8x64x4x32xf32>
//   V4-NOT:   vector.create_mask
//       V4:   scf.for {{.*}} -> (vector<8x32xf32>)
//   V4-NOT:   vector.create_mask
//       V4:   tensor.extract_slice %{{.*}}[192, 0] [5, 256] [1, 1] : tensor<197x256xf32> to tensor<5x256xf32>
//   V4-NOT:   vector.create_mask
//       V4:   scf.for {{.*}} -> (vector<5x32xf32>)
//   V4-NOT:   vector.create_mask
//   V4-NOT:   linalg.matmul
//       V4:   return
func.func @ragged_rows(%a: tensor<197x256xf32>, %b: tensor<256x256xf32>) -> tensor<197x256xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<197x256xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<197x256xf32>) -> tensor<197x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<197x256xf32>, tensor<256x256xf32>) outs(%z : tensor<197x256xf32>) -> tensor<197x256xf32>
  return %0 : tensor<197x256xf32>
}

// -----

// A batch matmul (attention's scores at 197 tokens): threads over the batch, the split on each
// batch's rows; K = 64 is one cache block.
// V3-LABEL: func.func @ragged_batch
//       V3:   tensor.extract_slice {{.*}} to tensor<1x196x197xf32>
//       V3:   scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:   tensor.extract_slice {{.*}} to tensor<1x1x197xf32>
//       V3:   scf.for {{.*}} -> (vector<1x1x{{[0-9]+}}xf32>)
//   V3-NOT:   linalg.batch_matmul
// V4-LABEL: func.func @ragged_batch
//   V4-NOT:   linalg.batch_matmul
func.func @ragged_batch(%a: tensor<6x197x64xf32>, %b: tensor<6x64x197xf32>) -> tensor<6x197x197xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x197x197xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<6x197x197xf32>) -> tensor<6x197x197xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<6x197x64xf32>, tensor<6x64x197xf32>) outs(%z : tensor<6x197x197xf32>) -> tensor<6x197x197xf32>
  return %0 : tensor<6x197x197xf32>
}
