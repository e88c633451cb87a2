// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --versa-collapse-reductions | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --versa-collapse-reductions --versa-codegen='threads=2 target=x86-64-v4' --canonicalize | FileCheck %s --check-prefix=CODEGEN
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --versa-collapse-reductions --versa-codegen='threads=2 target=x86-64-v3' --canonicalize | FileCheck %s --check-prefix=V3-CODEGEN

// Global average pool over NCHW axes (2, 3): one row reduction over [N*C, H*W], the
// collapse free, the result expanded back; then a vector loop of 64 lanes over 3136.
// CHECK-LABEL: func.func @pool
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2, 3]] : tensor<8x64x56x56xf32> into tensor<512x3136xf32>
//       CHECK:   %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<512x3136xf32>)
//       CHECK:   tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [8, 64] : tensor<512xf32> into tensor<8x64xf32>
// CODEGEN-LABEL: func.func @pool
//       CODEGEN:   scf.forall
//       CODEGEN:   scf.for %{{.+}} = %c0 to %c3136 step %c64 iter_args(%{{.+}} = %{{.+}}) -> (vector<4x64xf32>)
// V3-CODEGEN-LABEL: func.func @pool
//       V3-CODEGEN:   scf.forall
//       V3-CODEGEN:   scf.for %{{.+}} = %c0 to %c3136 step %c32 iter_args(%{{.+}} = %{{.+}}) -> (vector<2x32xf32>)
func.func @pool(%x: tensor<8x64x56x56xf32>) -> tensor<8x64xf32> {
  %0 = "versa.reduce_mean"(%x) {axes = array<i64: 2, 3>} : (tensor<8x64x56x56xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// Every element: [8, n/8] row partials, then the partials and the tail (40000 = 8 * 5000 + 0
// here; 40003 leaves 3) folded into the 0-d init.
// CHECK-LABEL: func.func @total
//       CHECK:   %[[HEAD:.+]] = tensor.extract_slice %{{.+}}[0] [40000] [1] : tensor<40003xf32> to tensor<40000xf32>
//       CHECK:   %[[ROWS:.+]] = tensor.expand_shape %[[HEAD]] {{\[\[}}0, 1]] output_shape [8, 5000]
//       CHECK:   %[[P:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[ROWS]] : tensor<8x5000xf32>) outs(%{{.+}} : tensor<8xf32>)
//       CHECK:   %[[C:.+]] = linalg.generic {{.+}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<8xf32>) outs(%{{.+}} : tensor<f32>)
//       CHECK:   %[[TAIL:.+]] = tensor.extract_slice %{{.+}}[40000] [3] [1] : tensor<40003xf32> to tensor<3xf32>
//       CHECK:   linalg.generic {{.+}} iterator_types = ["reduction"]} ins(%[[TAIL]] : tensor<3xf32>) outs(%[[C]] : tensor<f32>)
// CODEGEN-LABEL: func.func @total
//       CODEGEN:   scf.forall (%{{.+}}) in (2)
// V3-CODEGEN-LABEL: func.func @total
//       V3-CODEGEN:   scf.forall (%{{.+}}) in (2)
//       V3-CODEGEN:     scf.for %{{.+}} = %c0 to %c5000 step %c8 iter_args(%{{.+}} = %{{.+}}) -> (vector<4x8xf32>)
func.func @total(%x: tensor<40003xf32>) -> tensor<f32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<40003xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A ragged row of 1000: 960 in a loop of 64-lane steps, the last 40 as one vector per row.
// CODEGEN-LABEL: func.func @ragged
//       CODEGEN:   scf.for %{{.+}} = %c0 to %c960 step %c64 iter_args(%{{.+}} = %{{.+}}) -> (vector<4x64xf32>)
//       CODEGEN:     arith.addf %{{.+}} : vector<4x64xf32>
//       CODEGEN:   %[[T:.+]] = vector.transfer_read %{{.+}} : tensor<4x40xf32>, vector<4x40xf32>
//       CODEGEN:   vector.reduction <add>, %{{.+}} : vector<40xf32> into f32
// AVX2: one vector (8) divides the row of 1000: no tail.
// V3-CODEGEN-LABEL: func.func @ragged
//       V3-CODEGEN:   scf.for %{{.+}} = %c0 to %c1000 step %c8 iter_args(%{{.+}} = %{{.+}}) -> (vector<8x8xf32>)
//       V3-CODEGEN:     arith.addf %{{.+}} : vector<8x8xf32>
//   V3-CODEGEN-NOT:   vector.transfer_read {{.*}} : tensor<8x{{[0-9]+}}xf32>
//       V3-CODEGEN:   vector.reduction <add>, %{{.+}} : vector<8xf32> into f32
func.func @ragged(%x: tensor<4096x1000xf32>) -> tensor<4096xf32> {
  %0 = "versa.reduce_sum"(%x) {axes = array<i64: -1>} : (tensor<4096x1000xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}

// -----

// argmax: the row maximum (maximumf, vectors), then the first index holding it: a vector of
// lane indices selected where x equals the maximum (or both are NaN), folded with minsi.
// CODEGEN-LABEL: func.func @argmax
//       CODEGEN:   arith.maximumf %{{.+}} : vector<4x64xf32>
//       CODEGEN:   arith.cmpf oeq, %{{.+}} : vector<4x64xf32>
//       CODEGEN:   arith.cmpf uno
//       CODEGEN:   vector.step : vector<64xindex>
//       CODEGEN:   arith.select %{{.+}} : vector<4x64xi1>, vector<4x64xi64>
//       CODEGEN:   arith.minsi %{{.+}} : vector<4x64xi64>
// V3-CODEGEN-LABEL: func.func @argmax
//       V3-CODEGEN:   arith.maximumf %{{.+}} : vector<8x8xf32>
//       V3-CODEGEN:   arith.cmpf oeq, %{{.+}} : vector<8x8xf32>
//       V3-CODEGEN:   arith.cmpf uno
//       V3-CODEGEN:   vector.step : vector<8xindex>
//       V3-CODEGEN:   arith.select %{{.+}} : vector<8x8xi1>, vector<8x8xi64>
//       V3-CODEGEN:   arith.minsi %{{.+}} : vector<8x8xi64>
func.func @argmax(%x: tensor<4096x1000xf32>) -> tensor<4096xi64> {
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<4096x1000xf32>) -> tensor<4096xi64>
  return %0 : tensor<4096xi64>
}

// -----

// A keepdim row sum (torch-mlir's `x.sum(-1, keepdim=True)`): the size-1 result dim read at
// the constant 0 is dropped (a fresh fill of the kept dims), the rows merged, the result
// expanded back; then vector partial sums, as any row reduction (the strategy cannot take
// the (d0, d1, 0) form itself).
// CHECK-LABEL: func.func @keepdim
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x37x96xf32> into tensor<74x96xf32>
//       CHECK:   %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<74xf32>)
//       CHECK:   %[[S:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<74x96xf32>) outs(%[[F]] : tensor<74xf32>)
//       CHECK:   tensor.expand_shape %[[S]] {{\[\[}}0, 1, 2]] output_shape [2, 37, 1] : tensor<74xf32> into tensor<2x37x1xf32>
// CODEGEN-LABEL: func.func @keepdim
//       CODEGEN:   scf.forall (%{{.+}}) in (2)
//       CODEGEN:   scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<1x32xf32>)
//       CODEGEN:   vector.reduction <add>
//   CODEGEN-NOT:   linalg.generic
//       CODEGEN:   tensor.expand_shape
// V3-CODEGEN-LABEL: func.func @keepdim
//       V3-CODEGEN:   scf.forall (%{{.+}}) in (2)
//       V3-CODEGEN:   scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<1x32xf32>)
//       V3-CODEGEN:   vector.reduction <add>
//   V3-CODEGEN-NOT:   linalg.generic
//       V3-CODEGEN:   tensor.expand_shape
func.func @keepdim(%x: tensor<2x37x96xf32>) -> tensor<2x37x1xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x37x1xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<2x37x1xf32>) -> tensor<2x37x1xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x37x96xf32>) outs(%z : tensor<2x37x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x37x1xf32>
  return %0 : tensor<2x37x1xf32>
}

// -----

// A keepdim operand (the row means of a variance) is read through the merged rows too.
// CHECK-LABEL: func.func @keepdim_operand
//       CHECK:   %[[M:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1, 2]] : tensor<2x37x1xf32> into tensor<74xf32>
//       CHECK:   linalg.generic {{.+}} ins(%{{.+}}, %[[M]] : tensor<74x96xf32>, tensor<74xf32>) outs(%{{.+}} : tensor<74xf32>)
func.func @keepdim_operand(%x: tensor<2x37x96xf32>, %m: tensor<2x37x1xf32>) -> tensor<2x37xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x37xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<2x37xf32>) -> tensor<2x37xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %m : tensor<2x37x96xf32>, tensor<2x37x1xf32>) outs(%z : tensor<2x37xf32>) {
  ^bb0(%in: f32, %mean: f32, %acc: f32):
    %d = arith.subf %in, %mean : f32
    %s = arith.addf %d, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x37xf32>
  return %0 : tensor<2x37xf32>
}

// -----

// A keepdim sum of every element ([1, 1] result): 0-d once its unit dims are dropped, so in
// two stages as @total.
// CHECK-LABEL: func.func @keepdim_total
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<8x5000xf32>)
//       CHECK:   %[[C:.+]] = linalg.generic {{.+}} iterator_types = ["reduction"]} ins(%{{.+}} : tensor<8xf32>) outs(%{{.+}} : tensor<f32>)
//       CHECK:   tensor.expand_shape %[[C]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @keepdim_total(%x: tensor<1x40000xf32>) -> tensor<1x1xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<1x40000xf32>) outs(%z : tensor<1x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
