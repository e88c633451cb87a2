// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-streaming-stores{target=aarch64-neon})' | FileCheck %s
// (aarch64-neon: a fixed 32 MiB last-level cache, whatever machine runs the test.)

// An out-param of 32 MiB, only written: each full vector write tests its address and streams
// when it is aligned; one fence after the loop nest, not per store.
// CHECK-LABEL: func.func @large_output
//       CHECK:   scf.for
//       CHECK:     memref.extract_aligned_pointer_as_index
//       CHECK:     %[[LOW:.+]] = arith.andi %{{.+}}, %c63
//       CHECK:     %[[OK:.+]] = arith.cmpi eq, %[[LOW]], %{{.+}}
//       CHECK:     scf.if %[[OK]] {
//       CHECK:       vector.store %{{.+}} {alignment = 64 : i64, nontemporal = true}
//       CHECK:     } else {
//  CHECK-NEXT:       vector.store %{{.+}}[%{{.+}}] : memref<16xf32
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   llvm.fence seq_cst
//   CHECK-NOT:   llvm.fence
//       CHECK:   return
func.func @large_output(%x: memref<8388608xf32>, %y: memref<8388608xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c8388608 = arith.constant 8388608 : index
  %p = ub.poison : f32
  scf.for %i = %c0 to %c8388608 step %c16 {
    %xs = memref.subview %x[%i] [16] [1] : memref<8388608xf32> to memref<16xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%i] [16] [1] : memref<8388608xf32> to memref<16xf32, strided<[1], offset: ?>>
    %v = vector.transfer_read %xs[%c0], %p {in_bounds = [true]} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
    vector.transfer_write %v, %ys[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// An output the function reads back (softmax rescales its row in cache): plain stores.
// CHECK-LABEL: func.func @read_back
//   CHECK-NOT:   nontemporal
//   CHECK-NOT:   llvm.fence
//       CHECK:   return
func.func @read_back(%y: memref<8388608xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c8388608 = arith.constant 8388608 : index
  %p = ub.poison : f32
  scf.for %i = %c0 to %c8388608 step %c16 {
    %v = vector.transfer_read %y[%i], %p {in_bounds = [true]} : memref<8388608xf32>, vector<16xf32>
    %w = arith.addf %v, %v : vector<16xf32>
    vector.transfer_write %w, %y[%i] {in_bounds = [true]} : vector<16xf32>, memref<8388608xf32>
  }
  return
}

// -----

// An output that fits the last-level cache (its reader may find it there), and a masked tail
// write into a large one: plain stores.
// CHECK-LABEL: func.func @small_or_masked
//   CHECK-NOT:   nontemporal
//   CHECK-NOT:   llvm.fence
//       CHECK:   return
func.func @small_or_masked(%v: vector<16xf32>, %small: memref<1024xf32>, %large: memref<8388600xf32>) {
  %c0 = arith.constant 0 : index
  %c8388592 = arith.constant 8388592 : index
  %m = vector.constant_mask [8] : vector<16xi1>
  vector.transfer_write %v, %small[%c0] {in_bounds = [true]} : vector<16xf32>, memref<1024xf32>
  vector.transfer_write %v, %large[%c8388592], %m : vector<16xf32>, memref<8388600xf32>
  return
}

// -----

// A 2-D output written through views: the address adds every index times its stride.
// CHECK-LABEL: func.func @rows
//       CHECK:   memref.extract_strided_metadata
//       CHECK:   arith.muli
//       CHECK:   arith.muli
//       CHECK:   vector.store %{{.+}} {alignment = 64 : i64, nontemporal = true}
//       CHECK:   llvm.fence seq_cst
func.func @rows(%v: vector<16xf32>, %y: memref<4096x4096xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %row = memref.subview %y[%i, 0] [1, 4096] [1, 1] : memref<4096x4096xf32> to memref<1x4096xf32, strided<[4096, 1], offset: ?>>
  vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x4096xf32, strided<[4096, 1], offset: ?>>
  return
}
