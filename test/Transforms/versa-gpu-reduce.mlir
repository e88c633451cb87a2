// RUN: versa-opt %s --split-input-file --versa-gpu-reduce=block=128 --canonicalize | FileCheck %s

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// A row reduction: one block per row, each thread strides the row by the block size,
// the block's partial sums meet in gpu.all_reduce, and thread 0 folds them into the output.
// The body before the combiner (the exp) runs per element inside the loop.
// CHECK-LABEL: func.func @sum_exp
//   CHECK-DAG:   %[[ROWS:.*]] = arith.constant 64 : index
//   CHECK-DAG:   %[[THREADS:.*]] = arith.constant 128 : index
//       CHECK:   gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
//       CHECK:     %[[FIRST:.*]] = memref.load %arg0[%[[ROW]], %[[TX]]]
//       CHECK:     math.exp %[[FIRST]]
//       CHECK:     %[[PART:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[THREADS]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
//       CHECK:       memref.load %arg0[%[[ROW]], %[[K]]]
//       CHECK:       math.exp
//       CHECK:       arith.addf %[[ACC]]
//       CHECK:     %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
//       CHECK:     scf.if
//       CHECK:       %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
//       CHECK:       %[[NEW:.*]] = arith.addf %[[INIT]], %[[TOTAL]]
//       CHECK:       memref.store %[[NEW]], %arg1[%[[ROW]]]
//   CHECK-NOT:   linalg.generic
func.func @sum_exp(%x: memref<64x1000xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x1000xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %s = arith.addf %e, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#cols = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
// Reductions over an outer dimension, short ones and 64-bit elements stay linalg (a thread per
// result reads contiguous columns).
// CHECK-LABEL: func.func @outer
//       CHECK:   linalg.generic
//   CHECK-NOT:   gpu.launch
func.func @outer(%x: memref<1000x64xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#cols, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1000x64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @short_f64
//       CHECK:   linalg.generic
//       CHECK:   linalg.generic
//   CHECK-NOT:   gpu.launch
func.func @short_f64(%x: memref<64x16xf32>, %y: memref<64xf32>, %a: memref<8x100xf64>, %b: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x16xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x100xf64>) outs(%b : memref<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %in, %out : f64
    linalg.yield %s : f64
  }
  return
}
