// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --versa-collapse-reductions | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --versa-collapse-reductions --versa-codegen='threads=2' --canonicalize | FileCheck %s --check-prefix=CODEGEN

// Global average pool over NCHW axes (2, 3): one row reduction over [N*C, H*W], the
// collapse free, the result expanded back; then a vector loop of 64 lanes over 3136.
// CHECK-LABEL: func.func @pool
//       CHECK:   %[[X:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2, 3]] : tensor<8x64x56x56xf32> into tensor<512x3136xf32>
//       CHECK:   %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<512x3136xf32>)
//       CHECK:   tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [8, 64] : tensor<512xf32> into tensor<8x64xf32>
// CODEGEN-LABEL: func.func @pool
//       CODEGEN:   scf.forall
//       CODEGEN:   scf.for %{{.+}} = %c0 to %c3136 step %c64 iter_args(%{{.+}} = %{{.+}}) -> (vector<4x64xf32>)
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
func.func @argmax(%x: tensor<4096x1000xf32>) -> tensor<4096xi64> {
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<4096x1000xf32>) -> tensor<4096xi64>
  return %0 : tensor<4096xi64>
}
