// RUN: versa-opt %s --split-input-file --versa-returned-arguments | FileCheck %s

// A kernel that fills its argument through a collapsed view returns the argument itself
// (then drop-equivalent-buffer-results drops the result).
// CHECK-LABEL: func.func private @filled_rows
//  CHECK-SAME:   (%[[OUT:[a-z0-9]+]]: memref<?x?x8xf32>
//       CHECK:   return %[[OUT]] : memref<?x?x8xf32>
func.func private @filled_rows(%out: memref<?x?x8xf32>, %v: f32) -> memref<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %out, %c0 : memref<?x?x8xf32>
  %d1 = memref.dim %out, %c1 : memref<?x?x8xf32>
  %rows = memref.collapse_shape %out [[0, 1], [2]] : memref<?x?x8xf32> into memref<?x8xf32>
  linalg.fill ins(%v : f32) outs(%rows : memref<?x8xf32>)
  %back = memref.expand_shape %rows [[0, 1], [2]] output_shape [%d0, %d1, 8] : memref<?x8xf32> into memref<?x?x8xf32>
  return %back : memref<?x?x8xf32>
}

// -----

// Expanded another way (a different reassociation): not the argument's layout, left alone.
// CHECK-LABEL: func.func private @negative_other_grouping
//       CHECK:   %[[R:.+]] = memref.expand_shape
//       CHECK:   return %[[R]]
func.func private @negative_other_grouping(%out: memref<4x6xf32>) -> memref<2x12xf32> {
  %flat = memref.collapse_shape %out [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  %r = memref.expand_shape %flat [[0, 1]] output_shape [2, 12] : memref<24xf32> into memref<2x12xf32>
  return %r : memref<2x12xf32>
}
