// Dynamic dims (`?`): every result tensor gets its dynamic sizes as index values, taken with
// tensor.dim from the operand dim it equals (a `?` never stretches) or computed from them
// (a concat's sum, a reshape's product, a conv's output extent).
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg=pointwise-matmul=1 | FileCheck %s --check-prefix=PW

// The result rows are A's; the add reads both operands at the loop dims.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_add
//  CHECK-SAME:   (%[[A:.+]]: tensor<?x64xf32>, %[[B:.+]]: tensor<64x32xf32>, %[[C:.+]]: tensor<?x32xf32>)
//       CHECK:   %[[C0:.+]] = arith.constant 0 : index
//       CHECK:   %[[M:.+]] = tensor.dim %[[A]], %[[C0]] : tensor<?x64xf32>
//       CHECK:   %[[E:.+]] = tensor.empty(%[[M]]) : tensor<?x32xf32>
//       CHECK:   %[[F:.+]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x32xf32>)
//       CHECK:   %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F]] : tensor<?x32xf32>)
//       CHECK:   %[[R:.+]] = tensor.dim %[[MM]], %[[C0]]
//       CHECK:   %[[E2:.+]] = tensor.empty(%[[R]]) : tensor<?x32xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]]
//  CHECK-SAME:     ins(%[[MM]], %[[C]] : tensor<?x32xf32>, tensor<?x32xf32>) outs(%[[E2]] : tensor<?x32xf32>)
func.func @matmul_add(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %m = "versa.matmul"(%a, %b) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %r = "versa.add"(%m, %c) : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A static 1 against a dynamic result dim reads index 0; the dynamic operand dim the loop dim.
//   CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   tensor.empty(%[[N]]) : tensor<?x8xi1>
//       CHECK:   linalg.generic {indexing_maps = [#{{.+}}, #[[$ROW]], #{{.+}}]
//       CHECK:     arith.cmpf ogt
func.func @broadcast(%a: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> tensor<?x8xi1> {
  %y = "versa.compare"(%a, %b) {predicate = "gt"} : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xi1>
  return %y : tensor<?x8xi1>
}

// -----

// [?, ?, K] x [K, N]: the rows folded into one dynamic extent (the product of both dims).
// CHECK-LABEL: func.func @linear
//       CHECK:   %[[D1:.+]] = tensor.dim %arg0, %c1
//       CHECK:   %[[D0:.+]] = tensor.dim %arg0, %c0
//       CHECK:   %[[ROWS:.+]] = arith.muli %[[D0]], %[[D1]] : index
//       CHECK:   tensor.expand_shape {{.*}} output_shape [%[[ROWS]], 64] : tensor<?xf32> into tensor<?x64xf32>
//       CHECK:   tensor.empty(%[[ROWS]]) : tensor<?x32xf32>
//       CHECK:   linalg.matmul
//       CHECK:   tensor.expand_shape {{.*}} output_shape [%[[D0]], %[[D1]], 32] : tensor<?xf32> into tensor<?x?x32xf32>
func.func @linear(%a: tensor<?x?x64xf32>, %b: tensor<64x32xf32>) -> tensor<?x?x32xf32> {
  %y = "versa.matmul"(%a, %b) : (tensor<?x?x64xf32>, tensor<64x32xf32>) -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}

// -----

// keepdims re-inserts the unit dim with the kept dynamic extent; the mean divides by 64.
// CHECK-LABEL: func.func @mean
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   tensor.empty(%[[N]]) : tensor<?xf32>
//       CHECK:   iterator_types = ["parallel", "reduction"]
//       CHECK:   arith.divf
//       CHECK:   tensor.expand_shape {{.*}} output_shape [%[[N]], 1] : tensor<?xf32> into tensor<?x1xf32>
func.func @mean(%x: tensor<?x64xf32>) -> tensor<?x1xf32> {
  %y = "versa.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<?x64xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// -----

// A mean over a dynamic dim divides by its extent, converted at run time.
// CHECK-LABEL: func.func @mean_dynamic_axis
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   %[[I:.+]] = arith.index_cast %[[N]] : index to i64
//       CHECK:   %[[F:.+]] = arith.sitofp %[[I]] : i64 to f32
//       CHECK:   arith.divf %{{.+}}, %[[F]] : f32
func.func @mean_dynamic_axis(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %y = "versa.reduce_mean"(%x) {axes = array<i64: 0>} : (tensor<?x64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// [?, 64] to [?, 8, 8]: the dynamic dim is the input's times 64 / 64, folded at build time.
// CHECK-LABEL: func.func @reshape
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   %[[FLAT:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<?x64xf32> into tensor<?xf32>
//       CHECK:   tensor.expand_shape %[[FLAT]] {{\[}}[0, 1, 2]] output_shape [%[[N]], 8, 8]
func.func @reshape(%x: tensor<?x64xf32>) -> tensor<?x8x8xf32> {
  %y = "versa.reshape"(%x) : (tensor<?x64xf32>) -> tensor<?x8x8xf32>
  return %y : tensor<?x8x8xf32>
}

// -----

// A concat along a dynamic axis: the result's extent is the sum, the second offset the first's size.
// CHECK-LABEL: func.func @concat
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   %[[SUM:.+]] = arith.addi %[[N]], %c2 : index
//       CHECK:   %[[E:.+]] = tensor.empty(%[[SUM]]) : tensor<?x3xf32>
//       CHECK:   %[[Y:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [%{{.+}}, 3] [1, 1]
//       CHECK:   tensor.insert_slice %arg1 into %[[Y]][%{{.+}}, 0] [2, 3] [1, 1]
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %y = "versa.concat"(%a, %b) {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A transpose's result dims are its input's, permuted.
// CHECK-LABEL: func.func @transpose
//       CHECK:   %[[N:.+]] = tensor.dim %arg0
//       CHECK:   %[[E:.+]] = tensor.empty(%[[N]]) : tensor<64x?xf32>
//       CHECK:   linalg.transpose ins(%arg0 : tensor<?x64xf32>) outs(%[[E]] : tensor<64x?xf32>)
func.func @transpose(%x: tensor<?x64xf32>) -> tensor<64x?xf32> {
  %y = "versa.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<?x64xf32>) -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}

// -----

// A dynamic count of indices sizes the result; a dynamic table bounds the clamp at run time.
// CHECK-LABEL: func.func @gather
//       CHECK:   %[[ROWS:.+]] = tensor.dim %arg0, %c0
//       CHECK:   %[[COUNT:.+]] = tensor.dim %arg1, %c0
//       CHECK:   tensor.empty(%[[COUNT]]) : tensor<?x16xf32>
//       CHECK:   arith.addi %{{.+}}, %[[ROWS]] : index
//       CHECK:   %[[LAST:.+]] = arith.addi %[[ROWS]], %c-1 : index
//       CHECK:   arith.minsi %{{.+}}, %[[LAST]] : index
func.func @gather(%t: tensor<?x16xf32>, %i: tensor<?xi64>) -> tensor<?x16xf32> {
  %y = "versa.gather"(%t, %i) {axis = 0 : i64} : (tensor<?x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// An iota sized by its `like` operand: each dynamic dim is tensor.dim of the dim `dims` names
// (like's dim 1 here), the static one the type's; like's values are never read.
// CHECK-LABEL: func.func @iota_like
//       CHECK:   %[[C1:.+]] = arith.constant 1 : index
//       CHECK:   %[[S:.+]] = tensor.dim %arg0, %[[C1]] : tensor<?x?xi64>
//       CHECK:   %[[E:.+]] = tensor.empty(%[[S]]) : tensor<1x?xf32>
//       CHECK:   linalg.generic {{.*}} outs(%[[E]] : tensor<1x?xf32>)
//       CHECK:     %[[I:.+]] = linalg.index 1 : index
//       CHECK:     arith.sitofp
func.func @iota_like(%x: tensor<?x?xi64>) -> tensor<1x?xf32> {
  %y = "versa.iota"(%x) {axis = 1 : i64, dims = array<i64: -1, 1>} : (tensor<?x?xi64>) -> tensor<1x?xf32>
  return %y : tensor<1x?xf32>
}

// -----

// A conv with a dynamic batch: padded copy and result sized by the input's batch.
// CHECK-LABEL: func.func @conv_batch
//       CHECK:   %[[N:.+]] = tensor.dim %arg0, %c0
//       CHECK:   tensor.empty(%{{.+}}) : tensor<?x3x18x18xf32>
//       CHECK:   tensor.empty(%[[N]]) : tensor<?x8x8x8xf32>
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.+}}, %arg1 : tensor<?x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%{{.+}} : tensor<?x8x8x8xf32>)
func.func @conv_batch(%x: tensor<?x3x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x8x8xf32> {
  %y = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NCHW"} : (tensor<?x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x8x8xf32>
  return %y : tensor<?x8x8x8xf32>
}

// -----

// Dynamic H and W: the output extent (H + 2 - 3) // 2 + 1 on index values.
// CHECK-LABEL: func.func @conv_spatial
//       CHECK:   %[[H:.+]] = tensor.dim %arg0, %c1
//       CHECK:   %[[S:.+]] = arith.addi %[[H]], %c-1 : index
//       CHECK:   %[[Q:.+]] = arith.divui %[[S]], %c2 : index
//       CHECK:   %[[OH:.+]] = arith.addi %[[Q]], %c1 : index
//       CHECK:   tensor.empty(%[[OH]], %{{.+}}) : tensor<1x?x?x8xf32>
//       CHECK:   linalg.conv_2d_nhwc_hwcf
func.func @conv_spatial(%x: tensor<1x?x?x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x?x?x8xf32> {
  %y = "versa.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC"} : (tensor<1x?x?x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x?x?x8xf32>
  return %y : tensor<1x?x?x8xf32>
}

// -----

// A 1x1 NHWC conv as a matmul: its rows are N * H * W.
// PW-LABEL: func.func @pointwise
//       PW:   %[[N:.+]] = tensor.dim %arg0, %c0
//       PW:   %[[ROWS:.+]] = arith.muli %[[N]], %c64 : index
//       PW:   tensor.collapse_shape %arg0 {{\[}}[0, 1, 2], [3]] : tensor<?x8x8x4xf32> into tensor<?x4xf32>
//       PW:   tensor.empty(%[[ROWS]]) : tensor<?x8xf32>
//       PW:   linalg.matmul
//       PW:   tensor.expand_shape {{.*}} output_shape [%[[N]], 8, 8, 8] : tensor<?x8xf32> into tensor<?x8x8x8xf32>
func.func @pointwise(%x: tensor<?x8x8x4xf32>, %w: tensor<1x1x4x8xf32>) -> tensor<?x8x8x8xf32> {
  %y = "versa.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, layout = "NHWC"} : (tensor<?x8x8x4xf32>, tensor<1x1x4x8xf32>) -> tensor<?x8x8x8xf32>
  return %y : tensor<?x8x8x8xf32>
}

// -----

// A scatter loops over a dynamic count of index rows; a dynamic x bounds the indices.
// CHECK-LABEL: func.func @scatter
//       CHECK:   %[[COUNT:.+]] = tensor.dim %arg1, %c0
//       CHECK:   %[[ROWS:.+]] = tensor.dim %arg0, %c0
//       CHECK:   scf.for %{{.+}} = %c0 to %[[COUNT]] step %c1
//       CHECK:     arith.addi %{{.+}}, %[[ROWS]] : index
//       CHECK:     arith.cmpi ult, %{{.+}}, %[[ROWS]] : index
func.func @scatter(%x: tensor<?x4xf32>, %i: tensor<?x1xi64>, %u: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = "versa.scatter"(%x, %i, %u) {reduction = "add"} : (tensor<?x4xf32>, tensor<?x1xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
