// versa.slice bounds counted from a dynamic dim's end (`from_end`, issue 46): the offset and
// the length are index arithmetic on tensor.dim; a static length from the end keeps a static
// result and a dynamic offset.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse | FileCheck %s

// x[:, 1:]: offset 1, length size - 1.
// CHECK-LABEL: func.func @drop_first(
//  CHECK-SAME:   %[[X:.+]]: tensor<2x?x4xf32>
//       CHECK:   %[[N:.+]] = tensor.dim %[[X]], %c1
//       CHECK:   %[[LEN:.+]] = arith.subi %[[N]], %c1 : index
//       CHECK:   %[[V:.+]] = tensor.extract_slice %[[X]][0, 1, 0] [2, %[[LEN]], 4] [1, 1, 1]
//       CHECK:   linalg.copy {{.*}} ins(%[[V]] : tensor<2x?x4xf32>)
func.func @drop_first(%x: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %y = "versa.slice"(%x) {starts = array<i64: 0, 1, 0>, limits = array<i64: 2, 0, 4>, from_end = array<i64: 0, 2, 0>} : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  return %y : tensor<2x?x4xf32>
}

// -----

// x[1:-1:2]: (size - 1 - 1 + 1) floordiv 2 rows from row 1.
// CHECK-LABEL: func.func @inner_strided(
//       CHECK:   %[[N:.+]] = tensor.dim %{{.+}}, %c0
//       CHECK:   %[[SPAN:.+]] = arith.addi %[[N]], %c-1 : index
//       CHECK:   %[[LEN:.+]] = arith.divui %[[SPAN]], %c2 : index
//       CHECK:   tensor.extract_slice %{{.+}}[1, 0] [%[[LEN]], 8] [2, 1]
func.func @inner_strided(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = "versa.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 1, 8>, strides = array<i64: 2, 1>, from_end = array<i64: 2, 0>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// x[-4:]: a static 4-row result at offset size - 4.
// CHECK-LABEL: func.func @last_four(
//       CHECK:   %[[N:.+]] = tensor.dim %{{.+}}, %c0
//       CHECK:   %[[AT:.+]] = arith.addi %[[N]], %c-4 : index
//       CHECK:   tensor.extract_slice %{{.+}}[%[[AT]], 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
func.func @last_four(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %y = "versa.slice"(%x) {starts = array<i64: 4, 0>, limits = array<i64: 0, 8>, from_end = array<i64: 3, 0>} : (tensor<?x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
