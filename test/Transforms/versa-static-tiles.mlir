// RUN: versa-opt %s --split-input-file --versa-static-tiles=tile=4 | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-static-tiles=tile=32 | FileCheck %s --check-prefix=HALVES

// A dynamic row count: full tiles of 4 in a loop, then the rest (fewer than 4 rows): one row
// alone, else a zero-padded tile of 4 whose valid rows go in. Each tile is a private function
// that takes the result (writable) first, the whole input and the tile's offset (a slice
// argument would be copied), slices them, fills and multiplies its static tile in its place
// in the result (no tile allocated and copied per call) and returns the result; the loops are
// a private function of their own that fills the result its caller passes, so the layers of a
// model share them.
// With tiles of 32, the rows left after the full tiles run in the largest full tile that
// fits: halves down to 8 rows (each at most once: every power of two up to 32 is one tile),
// then one row alone or a padded tile of 8.
// HALVES-LABEL: func.func private @matmul_rows__group0__tile1
//       HALVES:   linalg.matmul {{.*}} -> tensor<32x8xf32>
// HALVES-LABEL: func.func private @matmul_rows__group0__tile2
//       HALVES:   linalg.matmul {{.*}} -> tensor<16x8xf32>
// HALVES-LABEL: func.func private @matmul_rows__group0__tile3
//       HALVES:   linalg.matmul {{.*}} -> tensor<8x8xf32>
// HALVES-LABEL: func.func private @matmul_rows__group0__tile4
//       HALVES:   linalg.matmul {{.*}} -> tensor<1x8xf32>
// HALVES-LABEL: func.func private @matmul_rows__group0__tile5
//       HALVES:   linalg.matmul {{.*}} -> tensor<8x8xf32>
// HALVES-LABEL: func.func private @matmul_rows__group0(
//   HALVES-NOT:   func.func private @matmul_rows__group0__tile6
// HALVES-LABEL: func.func @matmul_rows(
// CHECK-LABEL: func.func private @matmul_rows__group0__tile1
//  CHECK-SAME:   (%[[R:.+]]: tensor<?x8xf32> {bufferization.writable = true}, %[[AT:.+]]: index, %[[A:.+]]: tensor<?x16xf32> {bufferization.writable = false}, %{{.+}}: tensor<16x8xf32> {{.*}}) -> tensor<?x8xf32>
//       CHECK:   %[[SLICE:.+]] = tensor.extract_slice %[[A]][%[[AT]], 0] [4, 16] [1, 1] : tensor<?x16xf32> to tensor<4x16xf32>
//       CHECK:   %[[OUT:.+]] = tensor.extract_slice %[[R]][%[[AT]], 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
//       CHECK:   %[[F:.+]] = linalg.fill {{.*}} outs(%[[OUT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
//       CHECK:   %[[M:.+]] = linalg.matmul ins(%[[SLICE]], %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F]] : tensor<4x8xf32>)
//       CHECK:   %[[IN:.+]] = tensor.insert_slice %[[M]] into %[[R]][%[[AT]], 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<?x8xf32>
//       CHECK:   return %[[IN]]
// CHECK-LABEL: func.func private @matmul_rows__group0__tile2
//       CHECK:   linalg.matmul {{.*}} -> tensor<1x8xf32>
// CHECK-LABEL: func.func private @matmul_rows__group0__tile3
//  CHECK-SAME:   (%[[R3:.+]]: tensor<?x8xf32> {{.*}}, %[[AT2:.+]]: index, %[[ROWS:.+]]: index, %[[A2:.+]]: tensor<?x16xf32> {{.*}}, %{{.+}}: tensor<16x8xf32> {{.*}}) -> tensor<?x8xf32>
//       CHECK:   %[[PART:.+]] = tensor.extract_slice %[[A2]][%[[AT2]], 0] [%[[ROWS]], 16]
//       CHECK:   %[[ZEROS:.+]] = linalg.fill {{.*}} -> tensor<4x16xf32>
//       CHECK:   %[[PADDED:.+]] = tensor.insert_slice %[[PART]] into %[[ZEROS]][0, 0] [%[[ROWS]], 16]
//       CHECK:   %[[PM:.+]] = linalg.matmul ins(%[[PADDED]], %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>)
//       CHECK:   %[[VALID:.+]] = tensor.extract_slice %[[PM]][0, 0] [%[[ROWS]], 8] [1, 1] : tensor<4x8xf32> to tensor<?x8xf32>
//       CHECK:   tensor.insert_slice %[[VALID]] into %[[R3]][%[[AT2]], 0] [%[[ROWS]], 8]
// CHECK-LABEL: func.func private @matmul_rows__group0
//  CHECK-SAME:   (%[[OUT:.+]]: tensor<?x8xf32> {bufferization.writable = true}, %[[GA:.+]]: tensor<?x16xf32> {bufferization.writable = false}, %[[GB:.+]]: tensor<16x8xf32> {bufferization.writable = false}
//       CHECK:   %[[Q:.+]] = arith.divui %{{.+}}, %c4
//       CHECK:   %[[FULL:.+]] = arith.muli %[[Q]], %c4
//       CHECK:   %[[END:.+]] = arith.addi %{{.+}}, %[[FULL]]
//       CHECK:   scf.for %[[I:.+]] = %{{.+}} to %[[END]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[OUT]])
//       CHECK:     %[[TILE:.+]] = func.call @matmul_rows__group0__tile1(%[[ACC]], %[[I]], %[[GA]], %[[GB]])
//  CHECK-NEXT:     scf.yield %[[TILE]]
//       CHECK:   %[[REST:.+]] = arith.subi
//       CHECK:   arith.cmpi eq, %[[REST]], %c1
//       CHECK:   scf.if
//       CHECK:     func.call @matmul_rows__group0__tile2
//       CHECK:   } else {
//       CHECK:     arith.cmpi ugt
//       CHECK:     scf.if
//       CHECK:       func.call @matmul_rows__group0__tile3(%{{.+}}, %{{.+}}, %{{.+}}, %[[GA]], %[[GB]])
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.insert_slice
// CHECK-LABEL: func.func @matmul_rows
//       CHECK:   %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x8xf32>
//       CHECK:   %[[RES:.+]] = call @matmul_rows__group0(%[[E]], %arg0, %arg1, %{{.+}})
//       CHECK:   return %[[RES]]
func.func @matmul_rows(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Two dynamic dims: the outer runs one index at a time, the inner in tiles. Each row's
// cascade of tiles is a function of its own that fills the row in the buffer it is passed
// (a cascade nested in another's loops costs one-shot-bufferize exponential time).
// CHECK-LABEL: func.func private @reduce_two_dims__group0__tile1
//       CHECK:   linalg.generic {{.*}} ins(%{{.+}} : tensor<1x4x32xf32>) outs(%{{.+}} : tensor<1x4xf32>)
// CHECK-LABEL: func.func private @reduce_two_dims__group0__tiles4
//  CHECK-SAME:   (%[[ROW:.+]]: tensor<?x?xf32> {bufferization.writable = true}, %[[X:.+]]: tensor<?x?x32xf32> {bufferization.writable = false}, %[[AT:.+]]: index) -> tensor<?x?xf32>
//       CHECK:   scf.for %[[J:.+]] = {{.*}} iter_args(%[[R:.+]] = %[[ROW]])
//       CHECK:     func.call @reduce_two_dims__group0__tile1(%[[R]], %[[AT]], %[[J]], %[[X]])
//       CHECK:   func.call @reduce_two_dims__group0__tile3
// CHECK-LABEL: func.func private @reduce_two_dims__group0(
//       CHECK:   scf.for %[[I:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %arg0)
//  CHECK-NEXT:     %[[FILLED:.+]] = func.call @reduce_two_dims__group0__tiles4(%[[ACC]], %arg1, %[[I]])
//  CHECK-NEXT:     scf.yield %[[FILLED]]
//   CHECK-NOT:   scf.for
// CHECK-LABEL: func.func @reduce_two_dims
//       CHECK:   call @reduce_two_dims__group0(%arg1, %arg0)
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reduce_two_dims(%x: tensor<?x?x32xf32>, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x?x32xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// An elementwise consumer (a linear layer's bias) joins its producer's tile, as in a static
// compile; its temporary is one tile, and the constant it reads is copied in.
// CHECK-LABEL: func.func private @matmul_bias_relu__group0__tile1
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//   CHECK-NOT:   arith.constant
//       CHECK:   %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4x8xf32>)
//       CHECK:   %[[M:.+]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<4x8xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[M]], %{{.+}} : tensor<4x8xf32>, tensor<8xf32>)
//       CHECK:     arith.maximumf %{{.+}}, %[[ZERO]]
// CHECK-LABEL: func.func private @matmul_bias_relu__group0(
//       CHECK:   scf.for
//       CHECK:     func.call @matmul_bias_relu__group0__tile1
// CHECK-LABEL: func.func @matmul_bias_relu
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %c : tensor<?x8xf32>, tensor<8xf32>) outs(%e2 : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A contraction over a dynamic K stays whole in its tile (static rows and columns, K
// dynamic): the matmul strategy runs K as its k register loop, so the accumulators live in
// registers across all of it (versa-codegen-dynamic-k.mlir).
// CHECK-LABEL: func.func private @dynamic_k__group0__tile1
//       CHECK:   %[[F:.+]] = linalg.fill {{.*}} -> tensor<4x8xf32>
//       CHECK:   linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x?xf32>, tensor<?x8xf32>) outs(%[[F]] : tensor<4x8xf32>)
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   scf.for
//       CHECK:   return
func.func @dynamic_k(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Left alone: a window that reads the tiled dim shifted (d0 + d1: a 1-D convolution).
// CHECK-LABEL: func.func @negative_shifted_read
//       CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<?xf32>, tensor<3xf32>)
//   CHECK-NOT:   scf.for
#shifted = affine_map<(d0, d1) -> (d0 + d1)>
#taps = affine_map<(d0, d1) -> (d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @negative_shifted_read(%x: tensor<?xf32>, %w: tensor<3xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {indexing_maps = [#shifted, #taps, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<?xf32>, tensor<3xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %t: f32, %acc: f32):
    %m = arith.mulf %v, %t : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
