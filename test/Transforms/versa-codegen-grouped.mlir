// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v4' | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v4' | FileCheck %s --check-prefix=SERIAL
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v3' | FileCheck %s --check-prefix=V3
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v3' | FileCheck %s --check-prefix=V3-SERIAL

// A grouped conv as convert-versa-to-linalg{split-groups} builds it: one loop over (output
// row, group) around a named conv on the group's 8 channels (codegen/grouped_conv.py). The
// loop itself gives the threads: the body's conv gets no forall of its own, only conv.py's
// register tile (16 output columns x one vector of the group's 8 filters, accumulators
// carried across kh, kw and c in steps of 4). With one thread the loop is marked serial.
// CHECK-LABEL: func.func @grouped_loop
//       CHECK:   scf.forall (%{{.+}}, %{{.+}}) in (16, 8)
//   CHECK-NOT:     scf.forall
//       CHECK:     scf.for {{.*}} -> (vector<1x16x8xf32>)
//       CHECK:       scf.for {{.*}} -> (vector<1x16x8xf32>)
//       CHECK:         scf.for {{.*}} step %c4 {{.*}} -> (vector<1x16x8xf32>)
// CHECK-COUNT-64:        vector.fma {{.*}} : vector<8xf32>
//   CHECK-NOT:   linalg.conv
//       CHECK:   } {versa.group_loop}
// SERIAL-LABEL: func.func @grouped_loop
//       SERIAL:   } {versa.group_loop, versa.serial}
// AVX2: 8 output columns x one vector of the group's 8 filters (8 accumulators, half the 16
// registers), 32 fmas per step of 4 channels.
// V3-LABEL: func.func @grouped_loop
//       V3:   scf.forall (%{{.+}}, %{{.+}}) in (16, 8)
//   V3-NOT:     scf.forall
//       V3:     scf.for {{.*}} -> (vector<1x8x8xf32>)
//       V3:       scf.for {{.*}} -> (vector<1x8x8xf32>)
//       V3:         scf.for {{.*}} step %c4 {{.*}} -> (vector<1x8x8xf32>)
// V3-COUNT-32:        vector.fma {{.*}} : vector<8xf32>
//   V3-NOT:   linalg.conv
//       V3:   } {versa.group_loop}
// V3-SERIAL-LABEL: func.func @grouped_loop
//       V3-SERIAL:   } {versa.group_loop, versa.serial}
func.func @grouped_loop(%x: tensor<1x18x34x64xf32>, %w: tensor<3x3x8x64xf32>) -> tensor<1x16x32x64xf32> {
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x32x64xf32>
  %1 = scf.forall (%r, %g) in (16, 8) shared_outs(%o = %0) -> (tensor<1x16x32x64xf32>) {
    %c = arith.muli %g, %c8 : index
    %xg = tensor.extract_slice %x[0, %r, 0, %c] [1, 3, 34, 8] [1, 1, 1, 1] : tensor<1x18x34x64xf32> to tensor<1x3x34x8xf32>
    %wg = tensor.extract_slice %w[0, 0, 0, %c] [3, 3, 8, 8] [1, 1, 1, 1] : tensor<3x3x8x64xf32> to tensor<3x3x8x8xf32>
    %yg = tensor.extract_slice %o[0, %r, 0, %c] [1, 1, 32, 8] [1, 1, 1, 1] : tensor<1x16x32x64xf32> to tensor<1x1x32x8xf32>
    %z = linalg.fill ins(%cst : f32) outs(%yg : tensor<1x1x32x8xf32>) -> tensor<1x1x32x8xf32>
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x3x34x8xf32>, tensor<3x3x8x8xf32>) outs(%z : tensor<1x1x32x8xf32>) -> tensor<1x1x32x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[0, %r, 0, %c] [1, 1, 32, 8] [1, 1, 1, 1] : tensor<1x1x32x8xf32> into tensor<1x16x32x64xf32>
    }
  } {versa.group_loop}
  return %1 : tensor<1x16x32x64xf32>
}

// -----

// Depthwise NHWC (codegen/depthwise.py; enough work for two threads): rows across threads, then a loop over output rows
// (a forall marked serial) that fills each row right before the register tiles accumulate
// into it: no separate pass over the whole output.
// CHECK-LABEL: func.func @depthwise_rows
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     scf.forall (%{{.+}}) in (32)
//       CHECK:       vector.transfer_write %{{.+}} : vector<8x32xf32>
//       CHECK:       scf.for {{.*}} -> (vector<1x8x32xf32>)
//       CHECK:         scf.for {{.*}} -> (vector<1x8x32xf32>)
//       CHECK:           vector.fma {{.*}} : vector<8x32xf32>
//       CHECK:     } {versa.serial}
//   CHECK-NOT:   linalg.depthwise_conv
//   CHECK-NOT:   linalg.fill
// V3-LABEL: func.func @depthwise_rows
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.forall (%{{.+}}) in (32)
//       V3:       vector.transfer_write %{{.+}} : vector<4x16xf32>
//       V3:       scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:         scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:           vector.fma {{.*}} : vector<4x16xf32>
//       V3:     } {versa.serial}
//   V3-NOT:   linalg.depthwise_conv
//   V3-NOT:   linalg.fill
func.func @depthwise_rows(%x: tensor<1x66x66x256xf32>, %w: tensor<3x3x256xf32>) -> tensor<1x64x64x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x64x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x64x64x256xf32>) -> tensor<1x64x64x256xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x66x66x256xf32>, tensor<3x3x256xf32>) outs(%z : tensor<1x64x64x256xf32>) -> tensor<1x64x64x256xf32>
  return %0 : tensor<1x64x64x256xf32>
}

// -----

// A border strip that window_builders cut off a padded depthwise conv (`versa.border`): one
// thread, no fork of its own.
// CHECK-LABEL: func.func @depthwise_border
//   CHECK-NOT:   in (2)
//       CHECK:   vector.fma
// V3-LABEL: func.func @depthwise_border
//   V3-NOT:   in (2)
//       V3:   scf.for {{.*}} -> (vector<1x1x16xf32>)
//       V3:     vector.fma {{.*}} : vector<16xf32>
func.func @depthwise_border(%x: tensor<1x34x3x64xf32>, %w: tensor<3x3x64xf32>) -> tensor<1x32x1x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x1x64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x32x1x64xf32>) -> tensor<1x32x1x64xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, versa.border} ins(%x, %w : tensor<1x34x3x64xf32>, tensor<3x3x64xf32>) outs(%z : tensor<1x32x1x64xf32>) -> tensor<1x32x1x64xf32>
  return %0 : tensor<1x32x1x64xf32>
}

// -----

// Threads by the fork/join cost model (strategy.threads_worth), as for convs and matmuls, not
// by the output's size: a 1x1 grouped conv with 2 channels per group has 64K outputs but only
// 4 flops each, less than a fork and join saves, so even with two threads the loop is serial.
// CHECK-LABEL: func.func @negative_grouped_threads_little_work
//       CHECK:   } {versa.group_loop, versa.serial}
// V3-LABEL: func.func @negative_grouped_threads_little_work
//       V3:   } {versa.group_loop, versa.serial}
func.func @negative_grouped_threads_little_work(%x: tensor<1x64x64x32xf32>, %w: tensor<1x1x2x16xf32>) -> tensor<1x64x64x16xf32> {
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x64x64x16xf32>
  %1 = scf.forall (%r, %g) in (64, 16) shared_outs(%o = %0) -> (tensor<1x64x64x16xf32>) {
    %c = arith.muli %g, %c2 : index
    %xg = tensor.extract_slice %x[0, %r, 0, %c] [1, 1, 64, 2] [1, 1, 1, 1] : tensor<1x64x64x32xf32> to tensor<1x1x64x2xf32>
    %wg = tensor.extract_slice %w[0, 0, 0, %g] [1, 1, 2, 1] [1, 1, 1, 1] : tensor<1x1x2x16xf32> to tensor<1x1x2x1xf32>
    %yg = tensor.extract_slice %o[0, %r, 0, %g] [1, 1, 64, 1] [1, 1, 1, 1] : tensor<1x64x64x16xf32> to tensor<1x1x64x1xf32>
    %z = linalg.fill ins(%cst : f32) outs(%yg : tensor<1x1x64x1xf32>) -> tensor<1x1x64x1xf32>
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xg, %wg : tensor<1x1x64x2xf32>, tensor<1x1x2x1xf32>) outs(%z : tensor<1x1x64x1xf32>) -> tensor<1x1x64x1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[0, %r, 0, %g] [1, 1, 64, 1] [1, 1, 1, 1] : tensor<1x1x64x1xf32> into tensor<1x64x64x16xf32>
    }
  } {versa.group_loop}
  return %1 : tensor<1x64x64x16xf32>
}
