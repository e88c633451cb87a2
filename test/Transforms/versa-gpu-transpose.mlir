// RUN: versa-opt %s --split-input-file --versa-gpu-transpose | FileCheck %s

// NCHW -> NHWC, (0, 2, 3, 1): N kept, C swapped with H·W. A batch of 2-D transposes of the
// collapsed groups (64 x 1536 -> 1536 x 64) through 32 x 33 shared-memory tiles; the grid
// covers N by 32-column tiles, K by 32-row tiles, and the batch.
// CHECK-LABEL: gpu.module @versa_gpu_transpose_0
//       CHECK:   gpu.func @versa_gpu_transpose_0(%{{.*}}: memref<8x64x1536xf32>, %{{.*}}: memref<8x1536x64xf32>) workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 8, 1>}
//       CHECK:     gpu.barrier
// CHECK-LABEL: func.func @nchw_to_nhwc
//       CHECK:   %[[IN:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<8x64x32x48xf32> into memref<8x64x1536xf32>
//       CHECK:   %[[OUT:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1, 2], [3]] : memref<8x32x48x64xf32> into memref<8x1536x64xf32>
//       CHECK:   gpu.launch_func  @versa_gpu_transpose_0::@versa_gpu_transpose_0 blocks in (%c48, %c2, %c8) threads in (%c32, %{{.*}}, %{{.*}})  args(%[[IN]] : memref<8x64x1536xf32>, %[[OUT]] : memref<8x1536x64xf32>)
//   CHECK-NOT:   linalg.transpose
func.func @nchw_to_nhwc(%a: memref<8x64x32x48xf32>, %b: memref<8x32x48x64xf32>) {
  linalg.transpose ins(%a : memref<8x64x32x48xf32>) outs(%b : memref<8x32x48x64xf32>) permutation = [0, 2, 3, 1]
  return
}

// -----

// A plain 2-D transpose of bf16, ragged sizes: no batch dimension.
// CHECK-LABEL: func.func @matrix
//       CHECK:   gpu.launch_func  @versa_gpu_transpose_0::@versa_gpu_transpose_0 blocks in (%c4, %c5, %{{.*}}) {{.*}} args(%{{.*}} : memref<130x100xbf16>, %{{.*}} : memref<100x130xbf16>)
func.func @matrix(%a: memref<130x100xbf16>, %b: memref<100x130xbf16>) {
  linalg.transpose ins(%a : memref<130x100xbf16>) outs(%b : memref<100x130xbf16>) permutation = [1, 0]
  return
}

// -----

// Left for versa-gpu-map: the innermost dimension stays (0, 2, 1, 3: rows move, each whole and
// coalesced already), or a group is under a tile (3 channels).
// CHECK-LABEL: func.func @heads
//       CHECK:   linalg.transpose
// CHECK-LABEL: func.func @three_channels
//       CHECK:   linalg.transpose
func.func @heads(%a: memref<2x128x8x64xf32>, %b: memref<2x8x128x64xf32>) {
  linalg.transpose ins(%a : memref<2x128x8x64xf32>) outs(%b : memref<2x8x128x64xf32>) permutation = [0, 2, 1, 3]
  return
}
func.func @three_channels(%a: memref<2x3x64x64xf32>, %b: memref<2x64x64x3xf32>) {
  linalg.transpose ins(%a : memref<2x3x64x64xf32>) outs(%b : memref<2x64x64x3xf32>) permutation = [0, 2, 3, 1]
  return
}
