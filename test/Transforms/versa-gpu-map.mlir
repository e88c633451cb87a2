// RUN: versa-opt %s --split-input-file --versa-gpu-map=block=32 --canonicalize | FileCheck %s
// RUN: not versa-opt %s --versa-gpu-map=block=2048 2>&1 | FileCheck %s --check-prefix=BAD

// A 3-D loop nest becomes one launch over its 105 points, 32 threads a block, row-major
// delinearized (the innermost index varies fastest across threads) behind a guard.
// CHECK-LABEL: func.func @exp
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C32:.*]] = arith.constant 32 : index
//       CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]],
//       CHECK:     %[[LIN:.*]] = arith.addi %{{.*}}, %[[TX]]
//       CHECK:     arith.cmpi ult, %[[LIN]], %{{.*}}
//       CHECK:     scf.if
//       CHECK:       %[[K:.*]] = arith.remui %[[LIN]], %{{.*}}
//       CHECK:       %[[REST:.*]] = arith.divui %[[LIN]], %{{.*}}
//       CHECK:       %[[J:.*]] = arith.remui %[[REST]], %{{.*}}
//       CHECK:       %[[I:.*]] = arith.divui %[[REST]], %{{.*}}
//       CHECK:       memref.load %arg0[%[[I]], %[[J]], %[[K]]]
//       CHECK:       math.exp
//       CHECK:       memref.store
//       CHECK:     gpu.terminator
//   CHECK-NOT:   scf.parallel
// BAD: error: 'versa-gpu-map' block 2048 is not in 1..1024
func.func @exp(%x: memref<3x5x7xf32>, %y: memref<3x5x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c3, %c5, %c7) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<3x5x7xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j, %k] : memref<3x5x7xf32>
    scf.reduce
  }
  return
}

// -----

// Threads follow the stored buffer's layout, not the loop order: a depthwise conv loops over
// (n, oh, ow, c) but writes NCHW, so the fastest thread index (the first remainder) is the
// column, then the row, then the channel, and neighbouring threads write neighbouring outputs.
// CHECK-LABEL: func.func @nchw_store
//       CHECK:   gpu.launch
//       CHECK:     %[[LIN:.*]] = arith.addi %{{.*}}, %{{.*}} : index
//       CHECK:     scf.if
//       CHECK:       %[[W:.*]] = arith.remui %[[LIN]], %{{.*}}
//       CHECK:       %[[R1:.*]] = arith.divui %[[LIN]], %{{.*}}
//       CHECK:       %[[H:.*]] = arith.remui %[[R1]], %{{.*}}
//       CHECK:       %[[R2:.*]] = arith.divui %[[R1]], %{{.*}}
//       CHECK:       %[[C:.*]] = arith.remui %[[R2]], %{{.*}}
//       CHECK:       %[[N:.*]] = arith.divui %[[R2]], %{{.*}}
//       CHECK:       memref.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]]
//       CHECK:       memref.store %{{.*}}, %arg1[%[[N]], %[[C]], %[[H]], %[[W]]]
func.func @nchw_store(%x: memref<2x16x4x8xf32>, %y: memref<2x16x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c2, %c4, %c8, %c16) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<2x16x4x8xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%n, %c, %h, %w] : memref<2x16x4x8xf32>
    scf.reduce
  }
  return
}

// -----

// A loop with no parallel dimension (a full reduction) runs in a one-thread launch, so the
// host never touches device memory.
// CHECK-LABEL: func.func @sum
//   CHECK-NOT:   memref.load
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[ONE]],
//       CHECK:     scf.for
//       CHECK:       memref.load
//       CHECK:     gpu.terminator
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @sum(%x: memref<16xf32>, %y: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %a = memref.load %y[] : memref<f32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %y[] : memref<f32>
  }
  return
}
