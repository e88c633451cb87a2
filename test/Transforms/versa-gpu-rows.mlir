// RUN: versa-opt %s --versa-gpu-rows=block=128 | FileCheck %s

// After bufferization, a call of a function that versa-gpu-outline-rows marked becomes a
// buffer for the result and a call of a kernel writing it: one block per row (64 rows), each
// thread folding 16-byte vectors of its row, the partials meeting in gpu.all_reduce (the max,
// then the sum of exp(x - max)), and a last pass writing exp(x - max) / sum.
// CHECK-LABEL: func.func private @versa_gpu_0_kernel
//  CHECK-SAME:     (%[[X:.*]]: memref<64x1000xf32>, %[[Y:.*]]: memref<64x1000xf32>)
//       CHECK:   %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]] : memref<64x1000xf32> into memref<64000xf32>
//       CHECK:   %[[YF:.*]] = memref.collapse_shape %[[Y]]
//       CHECK:   gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128,
//       CHECK:     %[[BASE:.*]] = arith.muli %[[ROW]], %c1000
//       CHECK:     %[[START:.*]] = arith.muli %[[TX]], %c4
//       CHECK:     scf.for %{{.*}} = %[[START]] to %c1000 step %c512 iter_args
//       CHECK:       vector.load %[[XF]][%{{.*}}] {alignment = 16 : i64} : memref<64000xf32>, vector<4xf32>
//       CHECK:       arith.maximumf
//       CHECK:     %[[MAX:.*]] = gpu.all_reduce maximumf
//       CHECK:     scf.for
//       CHECK:       math.exp
//       CHECK:     gpu.all_reduce add
//       CHECK:     scf.for
//       CHECK:       math.exp
//       CHECK:       vector.store %{{.*}}, %[[YF]][%{{.*}}] {alignment = 16 : i64}
// CHECK-LABEL: func.func @main
//       CHECK:   %[[OUT:.*]] = memref.alloc() : memref<64x1000xf32>
//       CHECK:   call @versa_gpu_0_kernel(%arg0, %[[OUT]])
//       CHECK:   return %[[OUT]]
func.func private @versa_gpu_softmax_0(%x: memref<64x1000xf32>) -> memref<64x1000xf32>
    attributes {versa.gpu_rows = {epsilon = 0.0 : f32, kind = "softmax", lead = 1 : i64}} {
  %a = memref.alloc() : memref<64x1000xf32>
  return %a : memref<64x1000xf32>
}
func.func @main(%x: memref<64x1000xf32>) -> memref<64x1000xf32> {
  %y = call @versa_gpu_softmax_0(%x) : (memref<64x1000xf32>) -> memref<64x1000xf32>
  return %y : memref<64x1000xf32>
}
