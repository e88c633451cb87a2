// RUN: versa-opt %s --split-input-file --versa-drop-returned-buffers | FileCheck %s

// A row of tiles fills its argument and returns it; the group's loop yields what the call
// returned. Dropping the row's result makes the loop yield its iteration argument, which
// folds, so the group returns its argument too and loses its result in the next round.
// CHECK-LABEL: func.func private @row
//  CHECK-SAME:   (%{{.*}}: memref<?x?xf32>, %{{.*}}: index) {
//       CHECK:   return{{$}}
// CHECK-LABEL: func.func private @group
//  CHECK-SAME:   (%[[ACC:.+]]: memref<?x?xf32>, %[[N:.+]]: index) {
//       CHECK:   scf.for
//  CHECK-NEXT:     func.call @row(%[[ACC]], %{{.*}}) : (memref<?x?xf32>, index) -> ()
//       CHECK:   return{{$}}
// CHECK-LABEL: func.func @entry
//       CHECK:   call @group(%{{.*}}, %{{.*}}) : (memref<?x?xf32>, index) -> ()
//  CHECK-NEXT:   return %{{.*}} : memref<?x?xf32>
func.func private @row(%acc: memref<?x?xf32>, %i: index) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  memref.store %v, %acc[%i, %c0] : memref<?x?xf32>
  return %acc : memref<?x?xf32>
}
func.func private @group(%acc: memref<?x?xf32>, %n: index) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %acc) -> (memref<?x?xf32>) {
    %filled = func.call @row(%a, %i) : (memref<?x?xf32>, index) -> memref<?x?xf32>
    scf.yield %filled : memref<?x?xf32>
  }
  return %r : memref<?x?xf32>
}
func.func @entry(%out: memref<?x?xf32>, %n: index) -> memref<?x?xf32> {
  %r = func.call @group(%out, %n) : (memref<?x?xf32>, index) -> memref<?x?xf32>
  return %r : memref<?x?xf32>
}

// -----

// A function that returns a buffer of its own keeps its result.
// CHECK-LABEL: func.func private @negative_fresh
//  CHECK-SAME:   -> memref<4xf32>
//       CHECK:   return %{{.*}} : memref<4xf32>
func.func private @negative_fresh(%x: memref<4xf32>) -> memref<4xf32> {
  %b = memref.alloc() : memref<4xf32>
  memref.copy %x, %b : memref<4xf32> to memref<4xf32>
  return %b : memref<4xf32>
}
func.func @use(%x: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @negative_fresh(%x) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}
