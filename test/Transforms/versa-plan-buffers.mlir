// RUN: versa-opt %s --split-input-file --versa-plan-buffers | FileCheck %s

// A chain: %a is dead once %b is written, so %c reuses %a's bytes at offset 0; %b, live at the
// same time as both, sits at the next 64-byte boundary (100 bytes → 128).
//       CHECK: memref.global "private" @__versa_arena_chain : memref<256xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @chain
//  CHECK-SAME:   versa.arena_bytes = 256 : i64
//       CHECK:   %[[G:.+]] = memref.get_global @__versa_arena_chain : memref<256xi8>
//       CHECK:   %[[O1:.+]] = arith.constant 0 : index
//       CHECK:   memref.view %[[G]][%[[O1]]][] : memref<256xi8> to memref<25xf32>
//       CHECK:   %[[O2:.+]] = arith.constant 128 : index
//       CHECK:   memref.view %[[G]][%[[O2]]][] : memref<256xi8> to memref<25xf32>
//       CHECK:   %[[O3:.+]] = arith.constant 0 : index
//       CHECK:   memref.view %[[G]][%[[O3]]][] : memref<256xi8> to memref<25xf32>
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @chain(%x: memref<25xf32>, %out: memref<25xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<25xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<25xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<25xf32>
  linalg.copy ins(%x : memref<25xf32>) outs(%a : memref<25xf32>)
  linalg.copy ins(%a : memref<25xf32>) outs(%b : memref<25xf32>)
  linalg.copy ins(%b : memref<25xf32>) outs(%c : memref<25xf32>)
  linalg.copy ins(%c : memref<25xf32>) outs(%out : memref<25xf32>)
  memref.dealloc %a : memref<25xf32>
  memref.dealloc %b : memref<25xf32>
  memref.dealloc %c : memref<25xf32>
  return
}

// -----

// A use through an alias (expand_shape) nested in a loop keeps %a live until that loop, so %b
// (i1: one byte per element) cannot take its bytes; the largest buffer is placed first.
// CHECK-LABEL: func.func @alias_in_loop
//  CHECK-SAME:   versa.arena_bytes = 192 : i64
//       CHECK:   arith.constant 0 : index
//       CHECK:   memref.view %{{.+}}[%{{.+}}][] : memref<192xi8> to memref<32xf32>
//       CHECK:   arith.constant 128 : index
//       CHECK:   memref.view %{{.+}}[%{{.+}}][] : memref<192xi8> to memref<4x4xi1>
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.dealloc
func.func @alias_in_loop(%x: memref<32xf32>, %m: memref<4x4xi1>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  linalg.copy ins(%x : memref<32xf32>) outs(%a : memref<32xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<4x4xi1>
  linalg.copy ins(%m : memref<4x4xi1>) outs(%b : memref<4x4xi1>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %e[%i, %c0] : memref<4x8xf32>
    memref.store %v, %out[%i, %c0] : memref<4x8xf32>
  }
  memref.dealloc %a : memref<32xf32>
  memref.dealloc %b : memref<4x4xi1>
  return
}

// -----

// Nothing to plan: the arena is 0 bytes and no global is made.
//   CHECK-NOT: memref.global
// CHECK-LABEL: func.func @nothing
//  CHECK-SAME:   versa.arena_bytes = 0 : i64
func.func @nothing(%x: memref<4xf32>) {
  return
}

// -----

// Dynamic shapes are left alone.
// CHECK-LABEL: func.func @negative_dynamic
//       CHECK:   memref.alloc(%{{.+}}) : memref<?xf32>
//       CHECK:   memref.dealloc
func.func @negative_dynamic(%x: memref<?xf32>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// Dynamic buffers stay on the heap, but each is allocated right before its first use and freed
// right after its last (bufferization hoisted the allocs and freed at the block's end), so
// %b can take the block %a freed.
// CHECK-LABEL: func.func @dynamic_lifetimes
//  CHECK-SAME:   (%[[X:.+]]: memref<?xf32>, %[[Y:.+]]: memref<?xf32>, %[[N:.+]]: index)
//  CHECK-NEXT:   %[[A:.+]] = memref.alloc(%[[N]]) : memref<?xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[X]] : memref<?xf32>) outs(%[[A]] : memref<?xf32>)
//  CHECK-NEXT:   linalg.copy ins(%[[A]] : memref<?xf32>) outs(%[[Y]] : memref<?xf32>)
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<?xf32>
//  CHECK-NEXT:   %[[B:.+]] = memref.alloc(%[[N]]) : memref<?xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[Y]] : memref<?xf32>) outs(%[[B]] : memref<?xf32>)
//  CHECK-NEXT:   linalg.copy ins(%[[B]] : memref<?xf32>) outs(%[[Y]] : memref<?xf32>)
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<?xf32>
//  CHECK-NEXT:   return
func.func @dynamic_lifetimes(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  linalg.copy ins(%a : memref<?xf32>) outs(%y : memref<?xf32>)
  linalg.copy ins(%y : memref<?xf32>) outs(%b : memref<?xf32>)
  linalg.copy ins(%b : memref<?xf32>) outs(%y : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

// A dynamic buffer freed under a condition (the deallocation pipeline's ownership checks) is
// left where it is.
// CHECK-LABEL: func.func @negative_dynamic_conditional
//       CHECK:   memref.alloc
//  CHECK-NEXT:   linalg.copy
//  CHECK-NEXT:   scf.if
//  CHECK-NEXT:     memref.dealloc
func.func @negative_dynamic_conditional(%x: memref<?xf32>, %n: index, %c: i1) {
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%x : memref<?xf32>) outs(%a : memref<?xf32>)
  scf.if %c {
    memref.dealloc %a : memref<?xf32>
  }
  return
}

// -----

// An alloc inside a loop is left alone.
// CHECK-LABEL: func.func @negative_in_loop
//       CHECK:   scf.for
//       CHECK:     memref.alloc() : memref<8xf32>
//       CHECK:     memref.dealloc
func.func @negative_in_loop(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<8xf32>
    linalg.copy ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
    memref.dealloc %a : memref<8xf32>
  }
  return
}

// -----

// Escaping buffers are left alone: returned (also through a view), or passed to a call.
// CHECK-LABEL: func.func @negative_escaping
//       CHECK:   memref.alloc() : memref<8xf32>
//       CHECK:   memref.alloc() : memref<8xf32>
//       CHECK:   memref.alloc() : memref<8xf32>
//       CHECK:   memref.dealloc
func.func private @sink(memref<8xf32>)

func.func @negative_escaping(%x: memref<8xf32>) -> (memref<8xf32>, memref<2x4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %b = memref.alloc() : memref<8xf32>
  %e = memref.expand_shape %b [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %c = memref.alloc() : memref<8xf32>
  func.call @sink(%c) : (memref<8xf32>) -> ()
  memref.dealloc %c : memref<8xf32>
  return %a, %e : memref<8xf32>, memref<2x4xf32>
}

// -----

// A call of a function with a body in this module that returns no memref (a kernel shared
// between layers) is a use, not an escape: buffers passed to it are planned; the callee's own
// buffers go to its own arena.
// CHECK-LABEL: func.func private @kernel
//  CHECK-SAME:   versa.arena_bytes = 64
//       CHECK:   memref.get_global @__versa_arena_kernel
// CHECK-LABEL: func.func @calls_kernel
//  CHECK-SAME:   versa.arena_bytes = 128
//   CHECK-NOT:   memref.alloc
//       CHECK:   %[[A:.+]] = memref.view
//       CHECK:   call @kernel(%arg0, %[[A]])
//       CHECK:   %[[B:.+]] = memref.view
//       CHECK:   call @kernel(%[[A]], %[[B]])
func.func private @kernel(%x: memref<8xf32>, %out: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
  linalg.copy ins(%t : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %t : memref<8xf32>
  return
}

func.func @calls_kernel(%x: memref<8xf32>, %y: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  func.call @kernel(%x, %a) : (memref<8xf32>, memref<8xf32>) -> ()
  %b = memref.alloc() : memref<8xf32>
  func.call @kernel(%a, %b) : (memref<8xf32>, memref<8xf32>) -> ()
  linalg.copy ins(%b : memref<8xf32>) outs(%y : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}
