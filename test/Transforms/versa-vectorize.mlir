// RUN: versa-opt %s --split-input-file --versa-vectorize=width=8 | FileCheck %s

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
