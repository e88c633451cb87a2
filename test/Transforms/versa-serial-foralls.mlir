// RUN: versa-opt %s --split-input-file --versa-serial-foralls | FileCheck %s

// A bufferized forall marked versa.serial becomes an scf.for nest, outermost dim first.
// CHECK-LABEL: func.func @serial
//   CHECK-NOT:   scf.forall
//       CHECK:   scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
//       CHECK:     scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
//       CHECK:       memref.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]]
func.func @serial(%m: memref<4x6xf32>, %v: f32) {
  scf.forall (%i, %j) in (4, 6) {
    memref.store %v, %m[%i, %j] : memref<4x6xf32>
  } {versa.serial}
  return
}

// -----

// Unmarked foralls are threads: left for scf-forall-to-parallel and OpenMP.
// CHECK-LABEL: func.func @negative_threads
//       CHECK:   scf.forall (%{{.+}}) in (2)
//   CHECK-NOT:   scf.for
func.func @negative_threads(%m: memref<2xf32>, %v: f32) {
  scf.forall (%i) in (2) {
    memref.store %v, %m[%i] : memref<2xf32>
  }
  return
}

// -----

// A marked forall that still has shared outs (tensors) is left as it is.
// CHECK-LABEL: func.func @negative_tensors
//       CHECK:   scf.forall {{.*}} shared_outs
func.func @negative_tensors(%t: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xf32>) {
    %s = tensor.from_elements %v : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  } {versa.serial}
  return %r : tensor<4xf32>
}
