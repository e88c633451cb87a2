// RUN: versa-opt %s --split-input-file --versa-gpu-conv='pixels=32 channels=16 k-step=16' | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-gpu-conv --inline --symbol-dce | FileCheck %s --check-prefix=INLINED
// RUN: not versa-opt %s --split-input-file --versa-gpu-conv='pixels=40' 2>&1 | FileCheck %s --check-prefix=BAD

// An f32 NHWC conv on buffers becomes a call of an implicit-GEMM kernel specialised for its
// shapes: 32 output pixels x 16 channels per block (4 x 2 blocks, channels ragged), the im2col
// tile of the input and the filter (viewed as taps x channels) staged through shared memory in
// steps of 16 taps, a 2x1 register tile of fused multiply-adds per thread, guarded stores into
// the output viewed as pixels x channels. The gather takes pixel -> (n, oh, ow), tap -> (kh, kw, c).
// CHECK-LABEL: func.func private @versa_gpu_conv_0(
//  CHECK-SAME:     %[[X:.*]]: memref<2x10x10x8xf32>, %[[W:.*]]: memref<3x3x8x20xf32>, %[[Y:.*]]: memref<2x8x8x20xf32>)
//   CHECK-DAG:   %[[GX:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[GY:.*]] = arith.constant 4 : index
//       CHECK:   %[[WK:.*]] = memref.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : memref<3x3x8x20xf32> into memref<72x20xf32>
//       CHECK:   %[[YK:.*]] = memref.collapse_shape %[[Y]] {{\[}}[0, 1, 2], [3]] : memref<2x8x8x20xf32> into memref<128x20xf32>
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[GX]], {{.*}} = %[[GY]], {{.*}}) threads
//  CHECK-SAME:     workgroup(%[[AS:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
//       CHECK:     scf.for {{.*}} -> (f32, f32)
//       CHECK:       %[[N:.*]] = arith.divui %[[PIX:.*]], %c64 : index
//       CHECK:       %[[P:.*]] = arith.remui %[[PIX]], %c64 : index
//       CHECK:       %[[OH:.*]] = arith.divui %[[P]], %c8 : index
//       CHECK:       %[[OW:.*]] = arith.remui %[[P]], %c8 : index
//       CHECK:       %[[KH:.*]] = arith.divui %[[TAP:.*]], %c24 : index
//       CHECK:       %[[R:.*]] = arith.remui %[[TAP]], %c24 : index
//       CHECK:       %[[KW:.*]] = arith.divui %[[R]], %c8 : index
//       CHECK:       %[[C:.*]] = arith.remui %[[R]], %c8 : index
//       CHECK:       %[[H:.*]] = arith.addi %[[OH]], %[[KH]] : index
//       CHECK:       %[[V:.*]] = arith.addi %[[OW]], %[[KW]] : index
//       CHECK:       memref.load %[[X]][%[[N]], %[[H]], %[[V]], %[[C]]] : memref<2x10x10x8xf32>
//       CHECK:       memref.store {{.*}}, %[[AS]]
//       CHECK:       memref.load %[[WK]]
//       CHECK:       memref.store {{.*}}, %[[BS]]
//       CHECK:       gpu.barrier
//       CHECK:       scf.for
//  CHECK-COUNT-2:      math.fma
//       CHECK:       gpu.barrier
//       CHECK:     scf.if
//       CHECK:       memref.load %[[YK]]
//       CHECK:       arith.addf
//       CHECK:       memref.store %{{.*}}, %[[YK]]
// CHECK-LABEL: func.func @nhwc
//       CHECK:   call @versa_gpu_conv_0(%arg0, %arg1, %arg2)
//   CHECK-NOT:   linalg.conv
// The default tiles (the nvptx targets'): 128 pixels x 64 channels, 8 taps a step, 8x4 per thread.
// INLINED-LABEL: func.func @nhwc
// INLINED-NOT: call
// INLINED: gpu.launch
// INLINED-SAME: workgroup(%{{.*}} : memref<8x128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8x64xf32, #gpu.address_space<workgroup>>)
// INLINED-COUNT-32: math.fma
// BAD: error: 'versa-gpu-conv' pixels 40 / channels 64 / k-step 8 do not fit 16x16 threads
func.func @nhwc(%x: memref<2x10x10x8xf32>, %w: memref<3x3x8x20xf32>, %y: memref<2x8x8x20xf32>) {
  linalg.conv_2d_nhwc_hwcf ins(%x, %w : memref<2x10x10x8xf32>, memref<3x3x8x20xf32>)
    outs(%y : memref<2x8x8x20xf32>)
  return
}

// -----

// NCHW turns the GEMM around: channels down the grid's y (16 per block), pixels across x (32),
// so that neighbouring threads store neighbouring pixels; the filter is channels x taps, the
// gather takes tap -> (c, kh, kw) and applies strides (2, 3) and dilations (1, 2); the output
// is viewed as n x channels x pixels.
// CHECK-LABEL: func.func private @versa_gpu_conv_0(
//   CHECK-DAG:   %[[GX:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[GY:.*]] = arith.constant 2 : index
//       CHECK:   memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<24x4x3x3xf32> into memref<24x36xf32>
//       CHECK:   %[[YK:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<1x24x4x2xf32> into memref<1x24x8xf32>
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[GX]], {{.*}} = %[[GY]], {{.*}}) threads
//  CHECK-SAME:     workgroup(%{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>)
//       CHECK:       %[[C:.*]] = arith.divui %[[TAP:.*]], %c9 : index
//       CHECK:       %[[R:.*]] = arith.remui %[[TAP]], %c9 : index
//       CHECK:       %[[KH:.*]] = arith.divui %[[R]], %c3 : index
//       CHECK:       %[[KW:.*]] = arith.remui %[[R]], %c3 : index
//       CHECK:       %[[OHS:.*]] = arith.muli %[[OH:.*]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[H:.*]] = arith.addi %[[OHS]], %[[KH]] : index
//       CHECK:       %[[OWS:.*]] = arith.muli %[[OW:.*]], %c3 : index
//       CHECK:       %[[KWD:.*]] = arith.muli %[[KW]], %c2{{[_0-9]*}} : index
//       CHECK:       %[[V:.*]] = arith.addi %[[OWS]], %[[KWD]] : index
//       CHECK:       memref.load %{{.*}}[%{{.*}}, %[[C]], %[[H]], %[[V]]] : memref<1x4x9x9xf32>
//       CHECK:     scf.if
//       CHECK:       %[[YN:.*]] = arith.divui %{{.*}}, %c8 : index
//       CHECK:       %[[YP:.*]] = arith.remui %{{.*}}, %c8 : index
//       CHECK:       memref.load %[[YK]][%[[YN]], %{{.*}}, %[[YP]]]
// CHECK-LABEL: func.func @nchw
//       CHECK:   call @versa_gpu_conv_0
func.func @nchw(%x: memref<1x4x9x9xf32>, %w: memref<24x4x3x3xf32>, %y: memref<1x24x4x2xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>}
    ins(%x, %w : memref<1x4x9x9xf32>, memref<24x4x3x3xf32>) outs(%y : memref<1x24x4x2xf32>)
  return
}

// -----

// A grouped conv (convert-versa-to-linalg's generic; 2 groups of 4 input and 16 output
// channels) runs a group per grid z, offsetting filters and input channels by the group's.
// CHECK-LABEL: func.func private @versa_gpu_conv_0(
//   CHECK-DAG:   %[[GZ:.*]] = arith.constant 2 : index
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in ({{.*}}, {{.*}}, {{.*}} = %[[GZ]]) threads
//       CHECK:     %[[GF:.*]] = arith.muli %[[BZ]], %c16{{.*}} : index
//       CHECK:     %[[GC:.*]] = arith.muli %[[BZ]], %c4 : index
//       CHECK:       arith.addi %{{.*}}, %[[GF]] : index
//       CHECK:       arith.addi %{{.*}}, %[[GC]] : index
// CHECK-LABEL: func.func @grouped
//       CHECK:   call @versa_gpu_conv_0
//   CHECK-NOT:   linalg.generic
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 16) * 4 + d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @grouped(%x: memref<2x8x6x6xf32>, %w: memref<32x4x3x3xf32>, %y: memref<2x32x4x4xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel",
                  "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<2x8x6x6xf32>, memref<32x4x3x3xf32>) outs(%y : memref<2x32x4x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Depthwise (a channel per group: one column of a tile), f64 and strided views stay linalg.
// CHECK-LABEL: func.func @stays
//   CHECK-NOT:   call
//       CHECK:   linalg.generic
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}}f64
//       CHECK:   linalg.conv_2d_nhwc_hwcf
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#y = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @stays(%x: memref<1x8x6x6xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x8x4x4xf32>,
                 %a: memref<1x2x4x4xf64>, %b: memref<2x2x1x1xf64>, %c: memref<1x2x4x4xf64>,
                 %s: memref<1x6x6x2xf32, strided<[144, 24, 4, 1]>>, %f: memref<3x3x2x4xf32>, %o: memref<1x4x4x4xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel",
                  "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x6x6xf32>, memref<8x1x3x3xf32>) outs(%y : memref<1x8x4x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.conv_2d_nchw_fchw ins(%a, %b : memref<1x2x4x4xf64>, memref<2x2x1x1xf64>) outs(%c : memref<1x2x4x4xf64>)
  linalg.conv_2d_nhwc_hwcf ins(%s, %f : memref<1x6x6x2xf32, strided<[144, 24, 4, 1]>>, memref<3x3x2x4xf32>)
    outs(%o : memref<1x4x4x4xf32>)
  return
}
