// RUN: versa-opt %s --pass-pipeline='builtin.module(versa-unroll-hints)' | FileCheck %s
// RUN: versa-opt %s --pass-pipeline='builtin.module(versa-unroll-hints,convert-scf-to-cf)' | FileCheck %s --check-prefix=CF

//       CHECK: #[[OFF:.+]] = #llvm.loop_unroll<disable = true>
//       CHECK: #[[COUNT:.+]] = #llvm.loop_unroll<count = 4 : i32>
//       CHECK: #[[NO_UNROLL:.+]] = #llvm.loop_annotation<unroll = #[[OFF]]>
//       CHECK: #[[KEPT:.+]] = #llvm.loop_annotation<unroll = #[[COUNT]]>

// The outer loop contains a loop: LLVM may not unroll it. The inner one is LLVM's to judge.
// CHECK-LABEL: func.func @nest
//       CHECK:   scf.for
//       CHECK:     scf.for
//   CHECK-NOT:     loop_annotation
//       CHECK:     }
//  CHECK-NEXT:   } {loop_annotation = #[[NO_UNROLL]]}
// The annotation reaches the outer loop's back edge, and only that one.
//       CF: #[[NO_UNROLL:.+]] = #llvm.loop_annotation<unroll = #{{.+}}>
// CF-LABEL: func.func @nest
//       CF:   cf.br ^[[OUTER:bb[0-9]+]](%c0 : index)
//       CF:   cf.br ^[[INNER:bb[0-9]+]](%c0 : index)
//       CF:   cf.br ^[[INNER]](%{{.+}} : index){{$}}
//       CF:   cf.br ^[[OUTER]](%{{.+}} : index) {loop_annotation = #[[NO_UNROLL]]}
//       CF:   return
func.func @nest(%m: memref<64x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %v, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// A single loop stays as it is; a loop that already says how it unrolls keeps its word.
// CHECK-LABEL: func.func @single
//       CHECK:   scf.for
//   CHECK-NOT:   loop_annotation
//       CHECK:   scf.for
//       CHECK:   } {loop_annotation = #[[KEPT]]}
func.func @single(%m: memref<64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %v, %m[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %v, %m[%j] : memref<64xf32>
    }
  } {loop_annotation = #llvm.loop_annotation<unroll = <count = 4 : i32>>}
  return
}
