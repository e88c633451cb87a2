// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4 threads=2" %s | FileCheck %s
// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4 row-block=4" %s | FileCheck %s --check-prefix=ONE
// RUN: versa-opt --versa-int8-kernels="target=x86-64-v4 row-block=-1" %s | FileCheck %s --check-prefix=OLD

// The dot kernel walks cache blocks of output rows (kernels/int8_blocks.py), the filter panels
// inside each block: with threads, an scf.forall over (n, row block, pixel block, panel), here
// 2 images x 4 blocks of 2 rows (the whole image, 8 rows, fits half the L2; it shrinks to 8
// iterations for 2 threads) x 1 block of the 5 pixels x 1 panel of 48 filters; each block's
// rows one by one, an output row's tile each (its 5 pixels, fewer than MR = 8: one rest tile).
// CHECK-LABEL: func.func private @versa_int8_dot_0
//       CHECK: scf.forall (%[[N:.+]], %[[OB:.+]], %[[WB:.+]], %[[P:.+]]) in (2, 4, 1, 1) shared_outs(%[[O:.+]] = %{{.+}}) -> (tensor<2x8x5x48xi32>)
//       CHECK:   %[[COL:.+]] = arith.muli %[[P]], %c48 : index
//       CHECK:   %[[OH0:.+]] = arith.muli %[[OB]], %c2 : index
//       CHECK:   %[[W0:.+]] = arith.muli %[[WB]], %c5 : index
//       CHECK:   %[[BLOCK:.+]] = tensor.extract_slice %[[O]][%[[N]], %[[OH0]], %[[W0]], %[[COL]]] [1, 2, 5, 48] [1, 1, 1, 1]
//       CHECK:   scf.for %[[R:.+]] = %c0 to %c2 step %c1 iter_args(%[[BT:.+]] = %[[BLOCK]]) -> (tensor<1x2x5x48xi32>)
//       CHECK:     tensor.extract_slice %[[BT]][0, %[[R]], 0, 0] [1, 1, 5, 48] [1, 1, 1, 1]
//       CHECK:     func.call @llvm.x86.avx512.pmaddw.d.512
//       CHECK:     tensor.insert_slice %{{.+}} into %[[BT]][0, %[[R]], 0, 0] [1, 1, 5, 48] [1, 1, 1, 1]
//       CHECK:   scf.forall.in_parallel
//  CHECK-NEXT:     tensor.parallel_insert_slice %{{.+}} into %[[O]][%[[N]], %[[OH0]], %[[W0]], %[[COL]]] [1, 2, 5, 48] [1, 1, 1, 1]

// One thread: the same nest as serial loops, blocks of `row-block` rows (a divisor of OH).
// ONE-LABEL: func.func private @versa_int8_dot_0
//       ONE: scf.for %[[N:.+]] = %c0 to %c2 step %c1
//       ONE:   scf.for %[[OB:.+]] = %c0 to %c2 step %c1
//       ONE:     scf.for %[[WB:.+]] = %c0 to %c1 step %c1
//       ONE:       scf.for %[[P:.+]] = %c0 to %c1 step %c1
//       ONE:         tensor.extract_slice %{{.+}}[%[[N]], %{{.+}}, %{{.+}}, %{{.+}}] [1, 4, 5, 48] [1, 1, 1, 1]
//       ONE:         scf.for %{{.+}} = %c0 to %c4 step %c1 iter_args(%{{.+}}) -> (tensor<1x4x5x48xi32>)

// row-block=-1: the unblocked nest (every output row once per panel), kept for A/B timing.
// OLD-LABEL: func.func private @versa_int8_dot_0
//       OLD: scf.for %[[P:.+]] = %c0 to %c1 step %c1
//       OLD:   scf.for %[[N:.+]] = %c0 to %c2 step %c1
//       OLD:     scf.for %[[OB:.+]] = %c0 to %c8 step %c1
//       OLD:       scf.for %{{.+}} = %c0 to %c1 step %c1
//       OLD:         tensor.extract_slice %{{.+}}[%[[N]], %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, 5, 48] [1, 1, 1, 1]
//   OLD-NOT:         tensor<1x8x5x48xi32>
func.func @conv(%x: tensor<2x10x7x8xi8>) -> tensor<2x8x5x40xi32> {
  %w = arith.constant dense<3> : tensor<3x3x8x40xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x8x5x40xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<2x8x5x40xi32>) -> tensor<2x8x5x40xi32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<2x10x7x8xi8>, tensor<3x3x8x40xi8>) outs(%f : tensor<2x8x5x40xi32>) -> tensor<2x8x5x40xi32>
  return %0 : tensor<2x8x5x40xi32>
}
