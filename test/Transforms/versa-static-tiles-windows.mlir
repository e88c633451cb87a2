// RUN: versa-opt %s --versa-static-tiles | FileCheck %s
// RUN: versa-opt %s --versa-static-tiles --versa-outline-dynamic --versa-codegen="target=x86-64-v4 threads=1" \
// RUN:   --remarks-filter=versa-codegen -o /dev/null 2>&1 | FileCheck %s --check-prefix=CODEGEN

// A pool (or conv) with a dynamic H and W runs in static tiles of 8 output rows x 32 columns
// (then the column cascade 16, 8, one column, a padded 8; rows: one alone or a padded 8). A
// tile of output rows [o, o + T) reads the input rows [o*s, o*s + (T - 1)*s + K): the call
// computes o*s, the tile slices a static 17x65 window of the (already padded) input for an
// 8x32 tile of a 3x3 stride-2 pool. A partial tile reads (rows - 1)*s + K input rows into a
// padded static tile. The loops run over the result's extent (not the longer input's).
// CHECK-LABEL: func.func private @pool_hw__group0__tile1
//  CHECK-SAME:   (%[[R:.+]]: tensor<1x4x?x?xf32> {bufferization.writable = true}, %[[IH:.+]]: index, %[[OH:.+]]: index, %[[IW:.+]]: index, %[[OW:.+]]: index, %[[X:.+]]: tensor<1x4x?x?xf32> {{.*}}, %{{.+}}: tensor<3x3xf32> {{.*}})
//       CHECK:   tensor.extract_slice %[[X]][0, 0, %[[IH]], %[[IW]]] [1, 4, 17, 65] [1, 1, 1, 1] : tensor<1x4x?x?xf32> to tensor<1x4x17x65xf32>
//       CHECK:   tensor.extract_slice %[[R]][0, 0, %[[OH]], %[[OW]]] [1, 4, 8, 32] [1, 1, 1, 1] : tensor<1x4x?x?xf32> to tensor<1x4x8x32xf32>
//       CHECK:   linalg.pooling_nchw_max {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x4x17x65xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x4x8x32xf32>)
// The padded column tile: the valid columns' input columns, (cols - 1)*2 + 3, zero-padded to 17.
// CHECK-LABEL: func.func private @pool_hw__group0__tile5
//       CHECK:   tensor.extract_slice %{{.+}}[0, 0, %{{.+}}, %{{.+}}] [1, 4, 17, %{{.+}}] [1, 1, 1, 1] : tensor<1x4x?x?xf32> to tensor<1x4x17x?xf32>
//       CHECK:   linalg.pooling_nchw_max {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x4x17x17xf32>, tensor<3x3xf32>) outs(%{{.+}} : tensor<1x4x8x8xf32>)
// CHECK-LABEL: func.func private @pool_hw__group0__tiles6
//  CHECK-SAME:   (%[[ACC:.+]]: tensor<1x4x?x?xf32> {bufferization.writable = true}, %[[ROW:.+]]: index,
//       CHECK:   %[[COLS:.+]] = tensor.dim %[[ACC]], %c3
//       CHECK:   scf.for %[[COL:.+]] = %c0 to %{{.+}} step %c32
//       CHECK:     %[[IROW:.+]] = arith.muli %[[ROW]], %c2
//       CHECK:     %[[ICOL:.+]] = arith.muli %[[COL]], %c2
//       CHECK:     func.call @pool_hw__group0__tile1(%{{.+}}, %[[IROW]], %[[ROW]], %[[ICOL]], %[[COL]],
//       CHECK:   scf.if
//       CHECK:     %[[LEFT:.+]] = arith.subi %[[COLS]], %{{.+}} : index
//       CHECK:     scf.if
//       CHECK:       %[[READ:.+]] = arith.muli %[[LEFT]], %c2
//       CHECK:       %[[REACH:.+]] = arith.addi %[[READ]], %c1
//       CHECK:     func.call @pool_hw__group0__tile5(%{{.+}}, %{{.+}}, %[[ROW]], %{{.+}}, %[[REACH]], %{{.+}}, %[[LEFT]],
// CHECK-LABEL: func.func private @pool_hw__group0(
//       CHECK:   %[[ROWS:.+]] = tensor.dim %{{.+}}, %c2 : tensor<1x4x?x?xf32>
//       CHECK:   scf.for %{{.+}} = %c0 to %{{.+}} step %c8

// Every tile is static: the pool strategy takes each (none is left to plain loops).
// CODEGEN-NOT: no codegen strategy
// CODEGEN: remark: [Passed] versa-codegen | Category:strategy | Reason="tiled by PoolStrategy", op="linalg.pooling_nchw_max"
// CODEGEN-NOT: no codegen strategy
func.func @pool_hw(%x: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %h = tensor.dim %x, %c2 : tensor<1x4x?x?xf32>
  %w = tensor.dim %x, %c3 : tensor<1x4x?x?xf32>
  %h1 = arith.subi %h, %c1 : index
  %w1 = arith.subi %w, %c1 : index
  %oh = arith.divui %h1, %c2 : index
  %ow = arith.divui %w1, %c2 : index
  %window = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty(%oh, %ow) : tensor<1x4x?x?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %y = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : tensor<1x4x?x?xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  return %y : tensor<1x4x?x?xf32>
}
