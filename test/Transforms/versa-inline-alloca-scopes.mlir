// RUN: versa-opt %s --split-input-file --versa-inline-alloca-scopes | FileCheck %s

// A parallel body that calls a function outside its loop: canonicalize keeps the scope (a call
// might allocate, as far as it knows), this pass inlines it (no memref.alloca in it).
// CHECK-LABEL: func.func @calls_and_a_loop
//   CHECK-NOT:   memref.alloca_scope
//       CHECK:   omp.loop_nest
//       CHECK:     func.call @f
//       CHECK:     scf.for
//       CHECK:     omp.yield
func.func private @f(vector<16xi32>) -> vector<16xi32>
func.func @calls_and_a_loop(%m: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.alloca_scope {
          %v = vector.transfer_read %m[%i], %z {in_bounds = [true]} : memref<64xi32>, vector<16xi32>
          %w = func.call @f(%v) : (vector<16xi32>) -> vector<16xi32>
          scf.for %j = %c0 to %c4 step %c1 {
            vector.transfer_write %w, %m[%j] {in_bounds = [true]} : vector<16xi32>, memref<64xi32>
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A scope's results become the values it returned.
// CHECK-LABEL: func.func @results
//   CHECK-NOT:   memref.alloca_scope
//       CHECK:   %[[S:.+]] = arith.addi %arg0, %arg0
//       CHECK:   return %[[S]]
func.func @results(%a: index) -> index {
  %r = memref.alloca_scope -> (index) {
    %s = arith.addi %a, %a : index
    memref.alloca_scope.return %s : index
  }
  return %r : index
}

// -----

// A stack allocation is what a scope bounds: kept.
// CHECK-LABEL: func.func @negative_alloca
//       CHECK:   scf.for
//       CHECK:     memref.alloca_scope
//       CHECK:       memref.alloca
func.func @negative_alloca(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %b = memref.alloca() : memref<16xf32>
      memref.store %v, %b[%c0] : memref<16xf32>
    }
  }
  return
}
