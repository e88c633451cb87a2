// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg | FileCheck %s

// The comparison, logic and indexing ops (passes/lower_indexing.py and the scalar table).

// Float comparisons are ordered, except "ne": unordered, so NaN != NaN is true.
// CHECK-LABEL: func.func @compare
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<4x8xi1>
//       CHECK:   linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xi1>)
//       CHECK:   ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: i1):
//       CHECK:     %[[C:.+]] = arith.cmpf une, %[[X]], %[[Y]] : f32
//       CHECK:     linalg.yield %[[C]] : i1
//       CHECK:   arith.cmpf olt, %{{.+}}, %{{.+}} : f32
//       CHECK:   arith.cmpf oge, %{{.+}}, %{{.+}} : f32
func.func @compare(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>) {
  %0 = "versa.compare"(%a, %b) {predicate = "ne"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = "versa.compare"(%a, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %2 = "versa.compare"(%a, %b) {predicate = "ge"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  return %0, %1, %2 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>
}

// -----

// Integers compare signed; i1 unsigned (false < true).
// CHECK-LABEL: func.func @compare_int
//       CHECK:     arith.cmpi slt, %{{.+}}, %{{.+}} : i64
//       CHECK:     arith.cmpi ult, %{{.+}}, %{{.+}} : i1
//       CHECK:     arith.cmpi eq, %{{.+}}, %{{.+}} : i32
func.func @compare_int(%a: tensor<4xi64>, %c: tensor<4xi1>, %d: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = "versa.compare"(%a, %a) {predicate = "lt"} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %1 = "versa.compare"(%c, %c) {predicate = "lt"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = "versa.compare"(%d, %d) {predicate = "eq"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// select broadcasts all three operands in the indexing maps.
//   CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1) -> (d0, 0)>
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
//   CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @select
//       CHECK:   linalg.generic {indexing_maps = [#[[$C]], #[[$ID]], #[[$S]], #[[$ID]]]
//       CHECK:   ^bb0(%[[C:.+]]: i1, %[[T:.+]]: f32, %[[F:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[R:.+]] = arith.select %[[C]], %[[T]], %[[F]] : f32
//       CHECK:     linalg.yield %[[R]] : f32
func.func @select(%c: tensor<4x1xi1>, %a: tensor<4x8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  %0 = "versa.select"(%c, %a, %b) : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// not is xor with all ones: true for i1, -1 for integers.
// CHECK-LABEL: func.func @logic
//   CHECK-DAG:   %[[TRUE:.+]] = arith.constant true
//   CHECK-DAG:   %[[ONES:.+]] = arith.constant -1 : i32
//       CHECK:     arith.andi %{{.+}}, %{{.+}} : i1
//       CHECK:     arith.ori %{{.+}}, %{{.+}} : i1
//       CHECK:     arith.xori %{{.+}}, %[[TRUE]] : i1
//       CHECK:     arith.xori %{{.+}}, %[[ONES]] : i32
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>) {
  %0 = "versa.and"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = "versa.or"(%0, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = "versa.not"(%1) : (tensor<4xi1>) -> tensor<4xi1>
  %3 = "versa.not"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  return %2, %3 : tensor<4xi1>, tensor<4xi32>
}

// -----

// Casts to i1 are "!= 0" (NaN is true); i1 converts to 0 or 1 (unsigned).
// CHECK-LABEL: func.func @cast_i1
//       CHECK:     arith.cmpf une, %{{.+}}, %{{.+}} : f32
//       CHECK:     arith.cmpi ne, %{{.+}}, %{{.+}} : i64
//       CHECK:     arith.uitofp %{{.+}} : i1 to f16
//       CHECK:     arith.extui %{{.+}} : i1 to i32
func.func @cast_i1(%x: tensor<4xf32>, %y: tensor<4xi64>) -> (tensor<4xf16>, tensor<4xi32>) {
  %0 = "versa.cast"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %1 = "versa.cast"(%y) : (tensor<4xi64>) -> tensor<4xi1>
  %2 = "versa.cast"(%0) : (tensor<4xi1>) -> tensor<4xf16>
  %3 = "versa.cast"(%1) : (tensor<4xi1>) -> tensor<4xi32>
  return %2, %3 : tensor<4xf16>, tensor<4xi32>
}

// -----

// gather: a parallel generic over the result, reading the index in its body (at loops that
// stay put along the innermost one: the vectorizer sees a uniform table row), wrapped once,
// clamped to [0, n - 1], and the table through tensor.extract.
//   CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @gather
//  CHECK-SAME:   (%[[T:.+]]: tensor<3x10x4xf32>, %[[I:.+]]: tensor<2x5xi32>)
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0 : index
//   CHECK-DAG:   %[[N:.+]] = arith.constant 10 : index
//   CHECK-DAG:   %[[LAST:.+]] = arith.constant 9 : index
//       CHECK:   linalg.generic {indexing_maps = [#[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
//  CHECK-SAME:     outs(%{{.+}} : tensor<3x2x5x4xf32>)
//       CHECK:   ^bb0(%{{.+}}: f32):
//       CHECK:     %[[D1:.+]] = linalg.index 1 : index
//       CHECK:     %[[D2:.+]] = linalg.index 2 : index
//       CHECK:     %[[ID:.+]] = tensor.extract %[[I]][%[[D1]], %[[D2]]] : tensor<2x5xi32>
//       CHECK:     %[[K:.+]] = arith.index_cast %[[ID]] : i32 to index
//       CHECK:     %[[NEG:.+]] = arith.cmpi slt, %[[K]], %[[ZERO]] : index
//       CHECK:     %[[UP:.+]] = arith.addi %[[K]], %[[N]] : index
//       CHECK:     %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[K]] : index
//       CHECK:     %[[LO:.+]] = arith.maxsi %[[W]], %[[ZERO]] : index
//       CHECK:     %[[IN:.+]] = arith.minsi %[[LO]], %[[LAST]] : index
//       CHECK:     %[[D0:.+]] = linalg.index 0 : index
//       CHECK:     %[[D3:.+]] = linalg.index 3 : index
//       CHECK:     %[[V:.+]] = tensor.extract %[[T]][%[[D0]], %[[IN]], %[[D3]]] : tensor<3x10x4xf32>
//       CHECK:     linalg.yield %[[V]] : f32
func.func @gather(%t: tensor<3x10x4xf32>, %i: tensor<2x5xi32>) -> tensor<3x2x5x4xf32> {
  %0 = "versa.gather"(%t, %i) {axis = 1 : i64} : (tensor<3x10x4xf32>, tensor<2x5xi32>) -> tensor<3x2x5x4xf32>
  return %0 : tensor<3x2x5x4xf32>
}

// -----

// iota: a generic with no inputs yielding its loop index along the axis.
// CHECK-LABEL: func.func @iota
//       CHECK:   linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<3x5xf32>)
//       CHECK:     %[[I:.+]] = linalg.index 1 : index
//       CHECK:     %[[W:.+]] = arith.index_cast %[[I]] : index to i64
//       CHECK:     %[[F:.+]] = arith.sitofp %[[W]] : i64 to f32
//       CHECK:     linalg.yield %[[F]] : f32
//       CHECK:     %[[J:.+]] = linalg.index 0 : index
//       CHECK:     %[[B:.+]] = arith.index_cast %[[J]] : index to i8
//       CHECK:     linalg.yield %[[B]] : i8
func.func @iota() -> (tensor<3x5xf32>, tensor<3x5xi8>) {
  %0 = "versa.iota"() {axis = -1 : i64} : () -> tensor<3x5xf32>
  %1 = "versa.iota"() {axis = 0 : i64} : () -> tensor<3x5xi8>
  return %0, %1 : tensor<3x5xf32>, tensor<3x5xi8>
}

// -----

// reduce_argmax: the row maximum (maximumf from -inf), then the least index holding it (or,
// when the maximum is NaN, a NaN): minsi of select(equal, index, n) from n; the reduced axis
// as the innermost loop of both.
//   CHECK-DAG: #[[$X:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
//   CHECK-DAG: #[[$R:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @argmax
//   CHECK-DAG:   %[[N:.+]] = arith.constant 5 : i64
//   CHECK-DAG:   %[[NINF:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[V0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<3x4xf32>)
//       CHECK:   %[[M:.+]] = linalg.generic {indexing_maps = [#[[$X]], #[[$R]]], iterator_types = ["parallel", "parallel", "reduction"]}
//       CHECK:     arith.maximumf
//       CHECK:   %[[I0:.+]] = linalg.fill ins(%[[N]] : i64) outs(%{{.+}} : tensor<3x4xi64>)
//       CHECK:   %[[I:.+]] = linalg.generic {indexing_maps = [#[[$X]], #[[$R]], #[[$R]]], iterator_types = ["parallel", "parallel", "reduction"]}
//  CHECK-SAME:     ins(%{{.+}}, %[[M]] : tensor<3x5x4xf32>, tensor<3x4xf32>) outs(%[[I0]] : tensor<3x4xi64>)
//       CHECK:   ^bb0(%[[IN:.+]]: f32, %[[MAX:.+]]: f32, %[[AT:.+]]: i64):
//       CHECK:     %[[EQ:.+]] = arith.cmpf oeq, %[[IN]], %[[MAX]] : f32
//       CHECK:     %[[NAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
//       CHECK:     %[[MNAN:.+]] = arith.cmpf uno, %[[MAX]], %[[MAX]] : f32
//       CHECK:     %[[BOTH:.+]] = arith.andi %[[NAN]], %[[MNAN]] : i1
//       CHECK:     %[[TAKE:.+]] = arith.ori %[[EQ]], %[[BOTH]] : i1
//       CHECK:     %[[K:.+]] = linalg.index 2 : index
//       CHECK:     %[[HERE:.+]] = arith.index_cast %[[K]] : index to i64
//       CHECK:     %[[SEL:.+]] = arith.select %[[TAKE]], %[[HERE]], %[[N]] : i64
//       CHECK:     %[[MIN:.+]] = arith.minsi %[[SEL]], %[[AT]] : i64
//       CHECK:     linalg.yield %[[MIN]] : i64
//       CHECK:   tensor.expand_shape %[[I]] {{\[\[}}0, 1], [2]] output_shape [3, 1, 4] : tensor<3x4xi64> into tensor<3x1x4xi64>
func.func @argmax(%x: tensor<3x5x4xf32>) -> tensor<3x1x4xi64> {
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64, keepdims = true} : (tensor<3x5x4xf32>) -> tensor<3x1x4xi64>
  return %0 : tensor<3x1x4xi64>
}

// -----

// Integers: the signed maximum from the smallest value, then the first index equal to it.
// CHECK-LABEL: func.func @argmax_int
//       CHECK:   arith.constant -2147483648 : i32
//       CHECK:     arith.maxsi %{{.+}}, %{{.+}} : i32
//       CHECK:     arith.cmpi eq, %{{.+}}, %{{.+}} : i32
func.func @argmax_int(%x: tensor<3x5xi32>) -> tensor<3xi64> {
  %0 = "versa.reduce_argmax"(%x) {axis = 1 : i64} : (tensor<3x5xi32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// cumsum: outputs (running sum, result), the axis innermost; f16 accumulates in f32.
//   CHECK-DAG: #[[$X:.+]] = affine_map<(d0, d1) -> (d1, d0)>
//   CHECK-DAG: #[[$R:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @cumsum
//       CHECK:   %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<5xf32>)
//       CHECK:   %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[$X]], #[[$R]], #[[$X]]], iterator_types = ["parallel", "reduction"]}
//  CHECK-SAME:     outs(%[[Z]], %{{.+}} : tensor<5xf32>, tensor<3x5xf16>)
//       CHECK:   ^bb0(%[[IN:.+]]: f16, %[[SUM:.+]]: f32, %{{.+}}: f16):
//       CHECK:     %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
//       CHECK:     %[[S:.+]] = arith.addf %[[SUM]], %[[W]] : f32
//       CHECK:     %[[Y:.+]] = arith.truncf %[[S]] : f32 to f16
//       CHECK:     linalg.yield %[[S]], %[[Y]] : f32, f16
//       CHECK:   return %[[R]]#1
func.func @cumsum(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %0 = "versa.cumsum"(%x) {axis = 0 : i64} : (tensor<3x5xf16>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}
