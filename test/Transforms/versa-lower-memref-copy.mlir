// RUN: versa-opt %s --split-input-file --versa-lower-memref-copy | FileCheck %s

// A strided copy (here: into the interior of a padded buffer) becomes a linalg.copy, with the
// leading unit dim merged into the next (contiguous in both memrefs) and the rows kept.
// CHECK-LABEL: func.func @strided
//   CHECK-NOT:   memref.copy
//       CHECK:   %[[A:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : memref<1x8x8x8xf32> into memref<8x8x8xf32>
//       CHECK:   %[[B:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : {{.+}} into memref<8x8x8xf32, strided<[100, 10, 1], offset: 11>>
//       CHECK:   linalg.copy {{.*}}ins(%[[A]] : memref<8x8x8xf32>) outs(%[[B]] : memref<8x8x8xf32, strided<[100, 10, 1], offset: 11>>)
func.func @strided(%a: memref<1x8x8x8xf32>, %b: memref<1x8x10x10xf32>) {
  %s = memref.subview %b[0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1] : memref<1x8x10x10xf32> to memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>
  memref.copy %a, %s : memref<1x8x8x8xf32> to memref<1x8x8x8xf32, strided<[800, 100, 10, 1], offset: 11>>
  return
}

// -----

// Dynamic offsets and rank 1 too.
// CHECK-LABEL: func.func @dynamic_offset
//       CHECK:   linalg.copy
//   CHECK-NOT:   memref.copy
func.func @dynamic_offset(%a: memref<16xf32>, %b: memref<32xf32>, %i: index) {
  %s = memref.subview %b[%i] [16] [2] : memref<32xf32> to memref<16xf32, strided<[2], offset: ?>>
  memref.copy %a, %s : memref<16xf32> to memref<16xf32, strided<[2], offset: ?>>
  return
}

// -----

// Identity layouts on both sides stay a memref.copy: finalize-memref-to-llvm makes it a memcpy.
// CHECK-LABEL: func.func @negative_contiguous
//       CHECK:   memref.copy
//   CHECK-NOT:   linalg.copy
func.func @negative_contiguous(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A concat's insert: the trailing dims are contiguous in both memrefs, so each batch is one
// row of 17*33*33 elements (LLVM makes it a memcpy), not 17*33 rows of 33.
// CHECK-LABEL: func.func @concat_insert
//       CHECK:   %[[A:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : memref<2x17x33x33xf32> into memref<2x18513xf32>
//       CHECK:   %[[B:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : {{.+}} into memref<2x18513xf32, strided<[57717, 1], offset: 18513>>
//       CHECK:   linalg.copy {{.*}}ins(%[[A]] : memref<2x18513xf32>) outs(%[[B]] : memref<2x18513xf32, strided<[57717, 1], offset: 18513>>)
func.func @concat_insert(%a: memref<2x17x33x33xf32>, %b: memref<2x53x33x33xf32>) {
  %s = memref.subview %b[0, 17, 0, 0] [2, 17, 33, 33] [1, 1, 1, 1] : memref<2x53x33x33xf32> to memref<2x17x33x33xf32, strided<[57717, 1089, 33, 1], offset: 18513>>
  memref.copy %a, %s : memref<2x17x33x33xf32> to memref<2x17x33x33xf32, strided<[57717, 1089, 33, 1], offset: 18513>>
  return
}
