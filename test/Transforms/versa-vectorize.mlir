// RUN: versa-opt %s --split-input-file --versa-vectorize=width=8 | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-vectorize="width=8 threads=2" | FileCheck %s --check-prefix=THREADS

// An elementwise generic is tiled to 1 x 8 and each tile becomes masked vector code.
// CHECK-LABEL: func.func @exp_2d
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} step %{{.+}}
//       CHECK:       vector.create_mask
//       CHECK:       vector.transfer_read
//       CHECK:       math.exp {{.*}} : vector<1x8xf32>
//       CHECK:       vector.transfer_write
//   CHECK-NOT:   linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_2d(%a: tensor<4x20xf32>) -> tensor<4x20xf32> {
  %e = tensor.empty() : tensor<4x20xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x20xf32>) outs(%e : tensor<4x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x20xf32>
  return %0 : tensor<4x20xf32>
}

// -----

// A reduction is left alone.
// CHECK-LABEL: func.func @negative_reduction
//       CHECK:   linalg.generic
//   CHECK-NOT:   vector.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
func.func @negative_reduction(%a: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]}
      ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// With threads, a large nest first splits its outermost dim across them (scf.forall, whole
// vectors per chunk); a small one stays on one thread.
// CHECK-LABEL: func.func @relu_threads
// THREADS-LABEL: func.func @relu_threads
//       THREADS:   scf.forall (%{{.*}}) in (2)
//       THREADS:     scf.for {{.*}} step %{{.+}}
//       THREADS:       arith.maximumf {{.*}} : vector<8xf32>
// THREADS-LABEL: func.func @negative_small_stays_serial
//   THREADS-NOT:   scf.forall
#map = affine_map<(d0) -> (d0)>
func.func @relu_threads(%a: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %z = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %0 : tensor<65536xf32>
}
func.func @negative_small_stays_serial(%a: tensor<4096xf32>) -> tensor<4096xf32> {
  %e = tensor.empty() : tensor<4096xf32>
  %z = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<4096xf32>) outs(%e : tensor<4096xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}

// -----

// A gather (versa.gather's lowering): the index is read in the body at loops that stay put
// along the innermost one, so each table row is one contiguous vector read, not a gather of
// lanes; the partial last tile (12 = 8 + 4) is masked.
// CHECK-LABEL: func.func @gather_rows
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.mask %{{.+}} { vector.transfer_read %arg1
//       CHECK:       arith.minsi %{{.+}} : vector<1x8xindex>
//       CHECK:       vector.mask %{{.+}} { vector.transfer_read %arg0
//  CHECK-SAME:         tensor<100x12xf32>, vector<1x8xf32>
//   CHECK-NOT:       vector.gather
//       CHECK:       vector.transfer_write
#row = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather_rows(%t: tensor<100x12xf32>, %i: tensor<5xi64>) -> tensor<5x12xf32> {
  %c0 = arith.constant 0 : index
  %c99 = arith.constant 99 : index
  %e = tensor.empty() : tensor<5x12xf32>
  %r = linalg.generic {indexing_maps = [#row], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<5x12xf32>) {
  ^bb0(%o: f32):
    %d0 = linalg.index 0 : index
    %id = tensor.extract %i[%d0] : tensor<5xi64>
    %k = arith.index_cast %id : i64 to index
    %lo = arith.maxsi %k, %c0 : index
    %in = arith.minsi %lo, %c99 : index
    %d1 = linalg.index 1 : index
    %v = tensor.extract %t[%in, %d1] : tensor<100x12xf32>
    linalg.yield %v : f32
  } -> tensor<5x12xf32>
  return %r : tensor<5x12xf32>
}

// -----

// Dynamic dims tile alike: the loops run to the call's extents, the mask covers a dynamic
// innermost dim, and threads split a dynamic outermost dim at run time (num_threads).
// CHECK-LABEL: func.func @dynamic_rows
//       CHECK:   tensor.dim
//       CHECK:   scf.for
//       CHECK:     scf.for {{.*}} step %{{.+}}
//       CHECK:       vector.create_mask
//       CHECK:       math.tanh {{.*}} : vector<1x8xf32>
//   CHECK-NOT:   linalg.generic
// THREADS-LABEL: func.func @dynamic_rows
//       THREADS:   scf.forall (%{{.*}}) in (2)
//       THREADS:     affine.min
//       THREADS:       math.tanh {{.*}} : vector<1x8xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_rows(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A function versa-outline-dynamic made for calls too small to split (`versa.one_thread`):
// its dynamic rows stay on one thread.
// THREADS-LABEL: func.func private @negative_dynamic_rows_one_thread
//   THREADS-NOT:   scf.forall
//       THREADS:   math.tanh {{.*}} : vector<1x8xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @negative_dynamic_rows_one_thread(%e: tensor<?x?xf32>, %a: tensor<?x?xf32>) -> tensor<?x?xf32>
    attributes {versa.one_thread} {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A static 0 beside a dynamic dim: an empty iteration space, left as it is (its loops never
// run). Splitting the dynamic rows across threads crashed the transform interpreter.
// CHECK-LABEL: func.func @zero_beside_dynamic
//       CHECK:   linalg.generic
//   CHECK-NOT:   vector.
// THREADS-LABEL: func.func @zero_beside_dynamic
//   THREADS-NOT:   scf.forall
//       THREADS:   linalg.generic
//   THREADS-NOT:   vector.
#s = affine_map<(d0, d1, d2) -> ()>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @zero_beside_dynamic(%a: tensor<f32>, %b: tensor<?x0x3xf32>, %o: tensor<?x0x3xf32>) -> tensor<?x0x3xf32> {
  %0 = linalg.generic {indexing_maps = [#s, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<f32>, tensor<?x0x3xf32>) outs(%o : tensor<?x0x3xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %1 = arith.mulf %x, %y : f32
    linalg.yield %1 : f32
  } -> tensor<?x0x3xf32>
  return %0 : tensor<?x0x3xf32>
}
