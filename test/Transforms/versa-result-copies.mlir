// RUN: versa-opt %s --split-input-file --versa-result-copies | FileCheck %s

// A public function's dynamic result, allocated and copied into its out-param: computed in
// the out-param instead (no allocation per call, no copy).
// CHECK-LABEL: func.func @dynamic_result
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: memref<?x64xf32>, %[[OUT:[a-z0-9]+]]: memref<?x64xf32>)
//   CHECK-NOT:   memref.alloc
//       CHECK:   linalg.copy ins(%[[X]] : memref<?x64xf32>) outs(%[[OUT]] : memref<?x64xf32>)
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @dynamic_result(%x: memref<?x64xf32>, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x64xf32>
  linalg.copy ins(%x : memref<?x64xf32>) outs(%a : memref<?x64xf32>)
  memref.copy %a, %out : memref<?x64xf32> to memref<?x64xf32>
  return
}

// -----

// The buffer is read after the copy: left alone.
// CHECK-LABEL: func.func @negative_read_after_the_copy
//       CHECK:   memref.alloc
//       CHECK:   memref.copy
func.func @negative_read_after_the_copy(%x: memref<?xf32>, %out: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  %v = memref.load %a[%c0] : memref<?xf32>
  return %v : f32
}

// -----

// A private function's copies are its callers' business: left alone.
// CHECK-LABEL: func.func private @negative_private
//       CHECK:   memref.alloc
//       CHECK:   memref.copy
func.func private @negative_private(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  return
}
