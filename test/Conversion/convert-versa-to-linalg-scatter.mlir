// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s

// versa.scatter (passes/lower_scatter.py): an scf.for over the index rows carrying the
// result; a row is wrapped once if negative, and only an in-range row (scf.if) updates its
// slice of the carried tensor.

// Whole rows (k = 1 of rank 3): extract the updates' row and the destination's, combine them
// in a parallel generic whose output is the destination slice, insert it back in place.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @scatter_rows
//  CHECK-SAME:   (%[[X:.+]]: tensor<10x3x4xf32>, %[[I:.+]]: tensor<2x3x1xi32>, %[[U:.+]]: tensor<2x3x3x4xf32>)
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0 : index
//   CHECK-DAG:   %[[ONE:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[ROWS:.+]] = arith.constant 6 : index
//   CHECK-DAG:   %[[N:.+]] = arith.constant 10 : index
//   CHECK-DAG:   %[[IDS:.+]] = tensor.expand_shape %{{.+}} : tensor<6xi32> into tensor<6x1xi32>
//   CHECK-DAG:   %[[UPD:.+]] = tensor.expand_shape %{{.+}} : tensor<72xf32> into tensor<6x3x4xf32>
//       CHECK:   %[[R:.+]] = scf.for %[[J:.+]] = %[[ZERO]] to %[[ROWS]] step %[[ONE]] iter_args(%[[ACC:.+]] = %[[X]]) -> (tensor<10x3x4xf32>)
//       CHECK:     %[[ID:.+]] = tensor.extract %[[IDS]][%[[J]], %[[ZERO]]] : tensor<6x1xi32>
//       CHECK:     %[[K:.+]] = arith.index_cast %[[ID]] : i32 to index
//       CHECK:     %[[NEG:.+]] = arith.cmpi slt, %[[K]], %[[ZERO]] : index
//       CHECK:     %[[UP:.+]] = arith.addi %[[K]], %[[N]] : index
//       CHECK:     %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[K]] : index
//       CHECK:     %[[OK:.+]] = arith.cmpi ult, %[[W]], %[[N]] : index
//       CHECK:     %[[NEXT:.+]] = scf.if %[[OK]] -> (tensor<10x3x4xf32>)
//       CHECK:       %[[NEW:.+]] = tensor.extract_slice %[[UPD]][%[[J]], 0, 0] [1, 3, 4] [1, 1, 1] : tensor<6x3x4xf32> to tensor<3x4xf32>
//       CHECK:       %[[OLD:.+]] = tensor.extract_slice %[[ACC]][%[[W]], 0, 0] [1, 3, 4] [1, 1, 1] : tensor<10x3x4xf32> to tensor<3x4xf32>
//       CHECK:       %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
//  CHECK-SAME:         ins(%[[NEW]] : tensor<3x4xf32>) outs(%[[OLD]] : tensor<3x4xf32>)
//       CHECK:         arith.addf
//       CHECK:       %[[INS:.+]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[W]], 0, 0] [1, 3, 4] [1, 1, 1]
//       CHECK:       scf.yield %[[INS]] : tensor<10x3x4xf32>
//       CHECK:     } else {
//       CHECK:       scf.yield %[[ACC]] : tensor<10x3x4xf32>
//       CHECK:     scf.yield %[[NEXT]] : tensor<10x3x4xf32>
//       CHECK:   return %[[R]]
func.func @scatter_rows(%x: tensor<10x3x4xf32>, %i: tensor<2x3x1xi32>, %u: tensor<2x3x3x4xf32>) -> tensor<10x3x4xf32> {
  %0 = "versa.scatter"(%x, %i, %u) {reduction = "add"} : (tensor<10x3x4xf32>, tensor<2x3x1xi32>, tensor<2x3x3x4xf32>) -> tensor<10x3x4xf32>
  return %0 : tensor<10x3x4xf32>
}

// -----

// Full coordinates (k = rank): every coordinate is checked, and a row is one element, read
// and written with tensor.extract / tensor.insert ("none" replaces, "max" combines: maxsi).
// CHECK-LABEL: func.func @scatter_elements
//       CHECK:   %[[FIRST:.+]] = scf.for
//       CHECK:     %[[A:.+]] = arith.cmpi ult, %{{.+}}, %c5 : index
//       CHECK:     %[[B:.+]] = arith.cmpi ult, %{{.+}}, %c4 : index
//       CHECK:     %[[OK:.+]] = arith.andi %[[A]], %[[B]] : i1
//       CHECK:     scf.if %[[OK]]
//       CHECK:       %[[V:.+]] = tensor.extract %{{.+}}[%{{.+}}] : tensor<3xi64>
//   CHECK-NOT:       arith.maxsi
//       CHECK:       tensor.insert %[[V]] into
//       CHECK:   scf.for {{.+}} iter_args(%{{.+}} = %[[FIRST]])
//       CHECK:       %[[NEW:.+]] = tensor.extract %{{.+}}[%{{.+}}] : tensor<3xi64>
//       CHECK:       %[[OLD:.+]] = tensor.extract %{{.+}}[%{{.+}}, %{{.+}}] : tensor<5x4xi64>
//       CHECK:       %[[M:.+]] = arith.maxsi %[[OLD]], %[[NEW]] : i64
//       CHECK:       tensor.insert %[[M]] into
func.func @scatter_elements(%x: tensor<5x4xi64>, %i: tensor<3x2xi64>, %u: tensor<3xi64>) -> tensor<5x4xi64> {
  %0 = "versa.scatter"(%x, %i, %u) : (tensor<5x4xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<5x4xi64>
  %1 = "versa.scatter"(%0, %i, %u) {reduction = "max"} : (tensor<5x4xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<5x4xi64>
  return %1 : tensor<5x4xi64>
}

// -----

// A splat-constant destination (a gradient's zeros) starts as a fill, not a copy of a constant.
// CHECK-LABEL: func.func @scatter_into_zeros
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
//       CHECK:   %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.+}} : tensor<100x8xf16>)
//       CHECK:   scf.for {{.+}} iter_args(%{{.+}} = %[[FILL]]) -> (tensor<100x8xf16>)
//       CHECK:     arith.minimumf
//   CHECK-NOT:   dense<
func.func @scatter_into_zeros(%i: tensor<6x1xi64>, %u: tensor<6x8xf16>) -> tensor<100x8xf16> {
  %z = "versa.constant"() {value = dense<0.0> : tensor<100x8xf16>} : () -> tensor<100x8xf16>
  %0 = "versa.scatter"(%z, %i, %u) {reduction = "min"} : (tensor<100x8xf16>, tensor<6x1xi64>, tensor<6x8xf16>) -> tensor<100x8xf16>
  return %0 : tensor<100x8xf16>
}
