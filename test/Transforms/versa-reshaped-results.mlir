// RUN: versa-opt %s --split-input-file --versa-reshaped-results | FileCheck %s
// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-reshaped-results, \
// RUN:   buffer-results-to-out-params{hoist-static-allocs modify-public-functions}, versa-result-copies)' \
// RUN:   | FileCheck %s --check-prefix=OUT

// A kernel writes rows of a collapsed buffer; the returned expanded view becomes the buffer.
// CHECK-LABEL: func.func @expanded_result
//       CHECK:   %[[B:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x3x8xf32>
//       CHECK:   %[[ROWS:.+]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1], [2]] : memref<2x3x8xf32> into memref<6x8xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[ROWS]] : memref<6x8xf32>)
//   CHECK-NOT:   memref.expand_shape
//       CHECK:   return %[[B]] : memref<2x3x8xf32>
// OUT-LABEL: func.func @expanded_result
//  OUT-SAME:   %[[OUT:[a-z0-9]+]]: memref<2x3x8xf32>)
//   OUT-NOT:   memref.alloc
//   OUT-NOT:   memref.copy
//       OUT:   memref.collapse_shape %[[OUT]]
func.func @expanded_result(%v: f32) -> memref<2x3x8xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<6x8xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<6x8xf32>)
  %r = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 8] : memref<6x8xf32> into memref<2x3x8xf32>
  return %r : memref<2x3x8xf32>
}

// -----

// CHECK-LABEL: func.func @collapsed_result
//       CHECK:   %[[B:.+]] = memref.alloc() : memref<24xf32>
//       CHECK:   %[[FULL:.+]] = memref.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [4, 6] : memref<24xf32> into memref<4x6xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[FULL]] : memref<4x6xf32>)
//       CHECK:   return %[[B]] : memref<24xf32>
func.func @collapsed_result(%v: f32) -> memref<24xf32> {
  %a = memref.alloc() : memref<4x6xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<4x6xf32>)
  %r = memref.collapse_shape %a [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  return %r : memref<24xf32>
}

// -----

// The buffer is itself a result: it keeps its shape (the view is copied out as before).
// CHECK-LABEL: func.func @negative_buffer_also_returned
//       CHECK:   %[[A:.+]] = memref.alloc() : memref<6x8xf32>
//       CHECK:   %[[R:.+]] = memref.expand_shape %[[A]]
//       CHECK:   return %[[A]], %[[R]]
func.func @negative_buffer_also_returned(%v: f32) -> (memref<6x8xf32>, memref<2x3x8xf32>) {
  %a = memref.alloc() : memref<6x8xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<6x8xf32>)
  %r = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 8] : memref<6x8xf32> into memref<2x3x8xf32>
  return %a, %r : memref<6x8xf32>, memref<2x3x8xf32>
}

// -----

// A reshaped argument is the caller's memory, not a local buffer: left alone.
// CHECK-LABEL: func.func @negative_argument_view
//       CHECK:   %[[R:.+]] = memref.expand_shape %arg0
//       CHECK:   return %[[R]]
func.func @negative_argument_view(%a: memref<6x8xf32>) -> memref<2x3x8xf32> {
  %r = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 8] : memref<6x8xf32> into memref<2x3x8xf32>
  return %r : memref<2x3x8xf32>
}

// -----

// A chain of reshapes (6x5 → 30 → 15x2, as versa.reshape lowers) is inverted step by step.
// CHECK-LABEL: func.func @reshape_chain
//       CHECK:   %[[B:.+]] = memref.alloc() : memref<15x2xf32>
//       CHECK:   %[[FLAT:.+]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<15x2xf32> into memref<30xf32>
//       CHECK:   %[[A:.+]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [6, 5] : memref<30xf32> into memref<6x5xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[A]] : memref<6x5xf32>)
//       CHECK:   return %[[B]] : memref<15x2xf32>
func.func @reshape_chain(%v: f32) -> memref<15x2xf32> {
  %a = memref.alloc() : memref<6x5xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<6x5xf32>)
  %f = memref.collapse_shape %a [[0, 1]] : memref<6x5xf32> into memref<30xf32>
  %r = memref.expand_shape %f [[0, 1]] output_shape [15, 2] : memref<30xf32> into memref<15x2xf32>
  return %r : memref<15x2xf32>
}

// -----

// Dynamic rows: the buffer takes the result's shape with the expand_shape's sizes (read from
// the argument before the alloc), and out-params hoisting makes it the caller's.
// CHECK-LABEL: func.func @dynamic_expanded_result
//       CHECK:   %[[D0:.+]] = memref.dim %arg0, %c0
//       CHECK:   %[[D1:.+]] = memref.dim %arg0, %c1
//       CHECK:   %[[B:.+]] = memref.alloc(%[[D0]], %[[D1]]) {alignment = 64 : i64} : memref<?x?x8xf32>
//       CHECK:   %[[ROWS:.+]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1], [2]] : memref<?x?x8xf32> into memref<?x8xf32>
//       CHECK:   linalg.fill ins(%{{.+}} : f32) outs(%[[ROWS]] : memref<?x8xf32>)
//       CHECK:   return %[[B]] : memref<?x?x8xf32>
// OUT-LABEL: func.func @dynamic_expanded_result
//  OUT-SAME:   %[[OUT:[a-z0-9]+]]: memref<?x?x8xf32>)
//   OUT-NOT:   memref.alloc
//   OUT-NOT:   memref.copy
//       OUT:   memref.collapse_shape %[[OUT]]
func.func @dynamic_expanded_result(%x: memref<?x?x8xf32>, %v: f32) -> memref<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x8xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?x8xf32>
  %rows = arith.muli %d0, %d1 : index
  %a = memref.alloc(%rows) {alignment = 64 : i64} : memref<?x8xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<?x8xf32>)
  %r = memref.expand_shape %a [[0, 1], [2]] output_shape [%d0, %d1, 8] : memref<?x8xf32> into memref<?x?x8xf32>
  return %r : memref<?x?x8xf32>
}

// -----

// Sizes defined after the alloc (they cannot size it there): left alone.
// CHECK-LABEL: func.func @negative_dynamic_sizes_after_the_alloc
//       CHECK:   memref.alloc(%arg0) : memref<?x8xf32>
//       CHECK:   memref.expand_shape
func.func @negative_dynamic_sizes_after_the_alloc(%n: index, %m: index) -> memref<?x?x8xf32> {
  %a = memref.alloc(%n) : memref<?x8xf32>
  %d = arith.divui %n, %m : index
  %r = memref.expand_shape %a [[0, 1], [2]] output_shape [%d, %m, 8] : memref<?x8xf32> into memref<?x?x8xf32>
  return %r : memref<?x?x8xf32>
}
