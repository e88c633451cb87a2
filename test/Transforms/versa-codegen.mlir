// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v4' | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v4' | FileCheck %s --check-prefix=SERIAL
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2 target=x86-64-v3' | FileCheck %s --check-prefix=V3
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1 target=x86-64-v3' | FileCheck %s --check-prefix=V3-SERIAL

// matmul: rows split across two threads, cache blocks, a register tile whose accumulators
// live in vector registers across the k loop (hoisted), outer products as vector.fma. B's
// block (128 KB, more than L1) is packed first: [n panels][k steps][4][nr], read by the tiles,
// copied as vectors (a panel's 4 x nr slice read and written whole, not element by element).
// CHECK-LABEL: func.func @matmul
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     %[[PANELS:.+]] = tensor.empty() : tensor<{{[0-9]+}}x32x4x{{[0-9]+}}xf32>
//       CHECK:     %[[PACKED:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[PANELS]])
//       CHECK:       tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}] [4, {{[0-9]+}}] [1, 1] : tensor<128x256xf32>
//       CHECK:       %[[PANEL:.+]] = vector.transfer_read {{.*}} : tensor<4x{{[0-9]+}}xf32>, vector<4x{{[0-9]+}}xf32>
//       CHECK:       vector.transfer_write %[[PANEL]], {{.*}} : vector<4x{{[0-9]+}}xf32>, tensor<{{[0-9]+}}x32x4x{{[0-9]+}}xf32>
//   CHECK-NOT:       tensor.insert_slice
//       CHECK:     scf.for
//       CHECK:       %[[ACC:.+]] = vector.transfer_read
//       CHECK:       scf.for {{.*}} iter_args(%{{.+}} = %[[ACC]]) -> (vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:         tensor.extract_slice %[[PACKED]]
//       CHECK:         vector.fma {{.*}} : vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   linalg.matmul
// SERIAL-LABEL: func.func @matmul
//   SERIAL-NOT:   scf.forall
//       SERIAL:   tensor.empty() : tensor<{{[0-9]+}}x32x4x{{[0-9]+}}xf32>
//       SERIAL:   vector.fma
// AVX2 (x86-64-v3: 8 lanes, 16 registers): a 4x16 tile, 4 rows of two vectors (8 accumulators,
// half the registers); B packed into [16 panels][32 k steps][4][16].
// V3-LABEL: func.func @matmul
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     %[[PANELS:.+]] = tensor.empty() : tensor<16x32x4x16xf32>
//       V3:     %[[PACKED:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[PANELS]])
//       V3:       tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}] [4, 16] [1, 1] : tensor<128x256xf32>
//       V3:       %[[PANEL:.+]] = vector.transfer_read {{.*}} : tensor<4x16xf32>, vector<4x16xf32>
//       V3:       vector.transfer_write %[[PANEL]], {{.*}} : vector<4x16xf32>, tensor<16x32x4x16xf32>
//       V3:     scf.for %{{.+}} = %c0 to %c256 step %c16
//       V3:       scf.for %{{.+}} = %c0 to %c128 step %c4
//       V3:         %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<4x16xf32>, vector<4x16xf32>
//       V3:         scf.for {{.*}} step %c4 iter_args(%{{.+}} = %[[ACC]]) -> (vector<4x16xf32>)
//       V3:           tensor.extract_slice %[[PACKED]]
// V3-COUNT-16:        vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   linalg.matmul
// V3-SERIAL-LABEL: func.func @matmul
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   tensor.empty() : tensor<16x32x4x16xf32>
//       V3-SERIAL:   scf.for {{.*}} -> (vector<4x16xf32>)
//       V3-SERIAL:     vector.fma {{.*}} : vector<16xf32>
func.func @matmul(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Sizes that do not divide the register tile: the full tiles are vector code without masks,
// the remainders masked; nothing stays a linalg.matmul. (Too little work for threads: the
// remainders' sizes are static, their masks constant.)
// CHECK-LABEL: func.func @ragged
//       CHECK:   vector.fma
//       CHECK:   vector.{{(create|constant)}}_mask
//   CHECK-NOT:   linalg.matmul
// V3-LABEL: func.func @ragged
//       V3:   scf.for %{{.+}} = %c0 to %c128 step %c16
//       V3:     scf.for %{{.+}} = %c0 to %c36 step %c4
//       V3:       scf.for {{.*}} -> (vector<4x16xf32>)
// V3-COUNT-4:       vector.fma {{.*}} : vector<16xf32>
//       V3:   vector.constant_mask [4, 3] : vector<4x16xi1>
// The 37th row is split off (matmul_rest.py): one row by 16 columns, the last 3 masked.
//       V3:   tensor.extract_slice %{{.*}}[36, 0] [1, 67] [1, 1] : tensor<37x67xf32> to tensor<1x67xf32>
//       V3:   scf.for {{.*}} -> (vector<1x16xf32>)
//       V3:   vector.constant_mask [3] : vector<16xi1>
//   V3-NOT:   linalg.matmul
func.func @ragged(%a: tensor<37x67xf32>, %b: tensor<67x131xf32>) -> tensor<37x131xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x131xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<37x131xf32>) -> tensor<37x131xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x67xf32>, tensor<67x131xf32>) outs(%z : tensor<37x131xf32>) -> tensor<37x131xf32>
  return %0 : tensor<37x131xf32>
}

// -----

// Five rows per register tile (M = 100): the accumulator rows stay a power of two of vectors.
// Three vectors (vector<5x48xf32> on AVX-512) have no legal LLVM type: the loop-carried
// accumulator was rebuilt element by element on every k step, 4-20x slower.
// CHECK-LABEL: func.func @five_row_tiles
//   CHECK-NOT:   x{{(24|40|48|80|96)}}xf32>
//       CHECK:   iter_args(%{{.+}} = %{{.+}}) -> (vector<5x{{(16|32|64)}}xf32>)
//       CHECK:     vector.fma
//   CHECK-NOT:   x{{(24|40|48|80|96)}}xf32>
// AVX2 tiles have 4 rows (of two vectors): no 5-row tile, and still no 3-vector accumulator.
// V3-LABEL: func.func @five_row_tiles
//   V3-NOT:   x{{(24|40|48|80|96)}}xf32>
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     iter_args(%{{.+}} = %{{.+}}) -> (vector<4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   x{{(24|40|48|80|96)}}xf32>
func.func @five_row_tiles(%a: tensor<100x64xf32>, %b: tensor<64x256xf32>) -> tensor<100x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<100x256xf32>) -> tensor<100x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x256xf32>) outs(%z : tensor<100x256xf32>) -> tensor<100x256xf32>
  return %0 : tensor<100x256xf32>
}

// -----

// A ragged N (200 is no multiple of the register tile's width) is not packed: its last panel
// would need C padded inside the k loop. Neither are few rows (B would be read by one tile).
// CHECK-LABEL: func.func @negative_pack_ragged_n
//   CHECK-NOT:   x4x{{[0-9]+}}xf32>
//       CHECK:   vector.fma
// CHECK-LABEL: func.func @negative_pack_few_rows
//   CHECK-NOT:   x4x{{[0-9]+}}xf32>
//       CHECK:   vector.fma
// V3-LABEL: func.func @negative_pack_ragged_n
//   V3-NOT:   x4x{{[0-9]+}}xf32>
//       V3:   scf.for {{.*}} -> (vector<4x16xf32>)
//       V3:     vector.fma {{.*}} : vector<16xf32>
//       V3:   vector.constant_mask [4, 8] : vector<4x16xi1>
//   V3-NOT:   x4x{{[0-9]+}}xf32>
// V3-LABEL: func.func @negative_pack_few_rows
//   V3-NOT:   x4x{{[0-9]+}}xf32>
//       V3:   scf.for {{.*}} -> (vector<4x16xf32>)
//       V3:     vector.fma {{.*}} : vector<16xf32>
func.func @negative_pack_ragged_n(%a: tensor<256x256xf32>, %b: tensor<256x200xf32>) -> tensor<256x200xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x200xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<256x200xf32>) -> tensor<256x200xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x200xf32>) outs(%z : tensor<256x200xf32>) -> tensor<256x200xf32>
  return %0 : tensor<256x200xf32>
}
func.func @negative_pack_few_rows(%a: tensor<8x256xf32>, %b: tensor<256x512xf32>) -> tensor<8x512xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<8x512xf32>) -> tensor<8x512xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x256xf32>, tensor<256x512xf32>) outs(%z : tensor<8x512xf32>) -> tensor<8x512xf32>
  return %0 : tensor<8x512xf32>
}

// -----

// A rank-8 update (K no longer than a vector) is store-bound: register tiles go row by row
// (m outer, n inner) and the fill is fused into each tile, so its accumulators start as zero
// registers: C is written once, never zeroed first nor read back.
// CHECK-LABEL: func.func @rank_update
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<32xf32>
//       CHECK:   scf.forall
//       CHECK:     scf.for %{{.+}} = %{{.+}} to %c512 step %c8
//       CHECK:       scf.for %{{.+}} = %{{.+}} to %c1024 step %c32
//       CHECK:         vector.fma %{{.+}}, %{{.+}}, %[[ZERO]] : vector<32xf32>
//   CHECK-NOT:   linalg.matmul
// V3-LABEL: func.func @rank_update
//   V3-NOT:   linalg.fill
//       V3:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
//       V3:   scf.forall
//       V3:     scf.for %{{.+}} = %{{.+}} to %c512 step %c4
//       V3:       scf.for %{{.+}} = %{{.+}} to %c1024 step %c16
//       V3:         vector.fma %{{.+}}, %{{.+}}, %[[ZERO]] : vector<16xf32>
//   V3-NOT:   linalg.matmul
func.func @rank_update(%a: tensor<1024x8xf32>, %b: tensor<8x1024xf32>) -> tensor<1024x1024xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1024x8xf32>, tensor<8x1024xf32>) outs(%z : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// batch matmul: threads over the batch; each thread zeroes its own batches (the fill is fused
// into the forall). A small one stays on one thread: a fork and join would cost more than the
// second thread saves.
// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     vector.transfer_write
//       CHECK:     vector.fma
//   CHECK-NOT:   linalg.batch_matmul
// CHECK-LABEL: func.func @negative_threads_small
//   CHECK-NOT:   scf.forall
//       CHECK:   vector.fma
//   CHECK-NOT:   scf.forall
// V3-LABEL: func.func @batch_matmul
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     vector.transfer_write
//       V3:     tensor.empty() : tensor<16x32x1x4x16xf32>
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   linalg.batch_matmul
// V3-LABEL: func.func @negative_threads_small
//   V3-NOT:   scf.forall
//       V3:   scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:     vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   scf.forall
func.func @batch_matmul(%a: tensor<4x128x128xf32>, %b: tensor<4x128x256xf32>) -> tensor<4x128x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x128x128xf32>, tensor<4x128x256xf32>) outs(%z : tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  return %0 : tensor<4x128x256xf32>
}
func.func @negative_threads_small(%a: tensor<4x64x32xf32>, %b: tensor<4x32x64xf32>) -> tensor<4x64x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x64x32xf32>, tensor<4x32x64xf32>) outs(%z : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %0 : tensor<4x64x64xf32>
}

// -----

// Ops without a strategy are left alone (elementwise ops are versa-vectorize's).
// CHECK-LABEL: func.func @negative_elementwise
//       CHECK:   linalg.exp
// V3-LABEL: func.func @negative_elementwise
//       V3:   linalg.exp
func.func @negative_elementwise(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.exp ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// conv2d NHWC (enough work for two threads): output rows split across them, a register tile of output pixels × filters
// whose accumulators live in vector registers across the kh, kw and c loops (all hoisted), the
// 1-D convolution left by `decompose` as vector.fma.
// CHECK-LABEL: func.func @conv_nhwc
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     %[[ACC:.+]] = vector.transfer_read
//       CHECK:     scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<1x{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:       scf.for {{.*}} -> (vector<1x{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:         scf.for {{.*}} -> (vector<1x{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:           vector.fma {{.*}} : vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   linalg.conv
// SERIAL-LABEL: func.func @conv_nhwc
//   SERIAL-NOT:   scf.forall
//   SERIAL-NOT:   nofold
//       SERIAL:   vector.fma
// V3-LABEL: func.func @conv_nhwc
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for %{{.+}} = %c0 to %c32 step %c4
//       V3:       scf.for %{{.+}} = %c0 to %c64 step %c16
//       V3:         %[[ACC:.+]] = vector.transfer_read {{.*}} : tensor<1x4x16xf32>, vector<4x16xf32>
//       V3:         scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:           scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:             scf.for {{.*}} step %c4 {{.*}} -> (vector<1x4x16xf32>)
// V3-COUNT-16:            vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   linalg.conv
// V3-SERIAL-LABEL: func.func @conv_nhwc
//   V3-SERIAL-NOT:   scf.forall
//   V3-SERIAL-NOT:   nofold
//       V3-SERIAL:   scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3-SERIAL:     vector.fma {{.*}} : vector<16xf32>
func.func @conv_nhwc(%x: tensor<1x34x34x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x32x32x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x34x34x32xf32>, tensor<3x3x32x64xf32>) outs(%z : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  return %0 : tensor<1x32x32x64xf32>
}

// -----

// Filters (2.4 MB) larger than half of L2, read by at least conv.PACK_REUSE register tiles of
// output pixels: in blocks of filters (a third of L2 each), each block first packed into
// [block / vector, 3, 3, C, vector] panels (a nofold pad per panel, in a loop of its own before
// the conv's, copied as 4 x vector slices: vector loads and stores), which the tiles then read
// contiguously (in place, a panel's rows lie 1 KB apart). The ISA levels' 1 MB L2 takes blocks of 32 filters: on AVX-512 one 32-wide panel, the
// block's pad itself; on AVX2 two 16-wide panels.
// SERIAL-LABEL: func.func @conv_nhwc_packed
//   SERIAL-NOT:   scf.forall
//       SERIAL:   scf.for %{{.+}} = %c0 to %c256 step %c32
//       SERIAL:     tensor.extract_slice %{{.+}}[0, 0, 0, %{{.+}}] [3, 3, 256, 32] [1, 1, 1, 1] : tensor<3x3x256x256xf32> to tensor<3x3x256x32xf32>
//       SERIAL:     tensor.empty() : tensor<3x3x256x32xf32>
//       SERIAL:     scf.for %{{.+}} = %c0 to %c256 step %c4 {{.*}} -> (tensor<3x3x256x32xf32>)
//       SERIAL:       %[[ROWS:.+]] = vector.transfer_read {{.*}} : tensor<1x1x4x32xf32>, vector<4x32xf32>
//       SERIAL:       vector.transfer_write %[[ROWS]], {{.*}} : vector<4x32xf32>, tensor<3x3x256x32xf32>
//       SERIAL:     scf.for {{.*}} -> (vector<1x7x32xf32>)
//       SERIAL:       vector.fma
// V3-SERIAL-LABEL: func.func @conv_nhwc_packed
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   scf.for %{{.+}} = %c0 to %c256 step %c32
//       V3-SERIAL:     tensor.empty() : tensor<2x3x3x256x16xf32>
//       V3-SERIAL:     scf.for %{{.+}} = %c0 to %c32 step %c16 {{.*}} -> (tensor<2x3x3x256x16xf32>)
//       V3-SERIAL:       %[[ROWS:.+]] = vector.transfer_read {{.*}} : tensor<1x1x4x16xf32>, vector<4x16xf32>
//       V3-SERIAL:       vector.transfer_write %[[ROWS]], {{.*}} : vector<4x16xf32>, tensor<3x3x256x16xf32>
//       V3-SERIAL:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3-SERIAL:       vector.fma {{.*}} : vector<16xf32>
func.func @conv_nhwc_packed(%x: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>) -> tensor<1x14x14x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%z : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %0 : tensor<1x14x14x256xf32>
}

// -----

// A small conv stays on one thread: a fork and join would cost more than the second saves.
// CHECK-LABEL: func.func @negative_conv_threads_small
//   CHECK-NOT:   scf.forall
//       CHECK:   vector.fma
// At 8 lanes the same conv takes twice the cycles: on AVX2 it is worth the second thread.
// V3-LABEL: func.func @negative_conv_threads_small
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
func.func @negative_conv_threads_small(%x: tensor<1x18x18x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x16x16x32xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x16xf32>, tensor<3x3x16x32xf32>) outs(%z : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}

// -----

// conv2d NCHW: the same nest; the vectors run along the output row (contiguous in NCHW).
// CHECK-LABEL: func.func @conv_nchw
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     vector.fma {{.*}} : vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   linalg.conv
// V3-LABEL: func.func @conv_nchw
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for %{{.+}} = %c0 to %c64 step %c4
//       V3:       scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:         vector.fma {{.*}} : vector<16xf32>
//   V3-NOT:   linalg.conv
func.func @conv_nchw(%x: tensor<1x32x34x66xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<1x64x32x64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x32x64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x64x32x64xf32>) -> tensor<1x64x32x64xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x34x66xf32>, tensor<64x32x3x3xf32>) outs(%z : tensor<1x64x32x64xf32>) -> tensor<1x64x32x64xf32>
  return %0 : tensor<1x64x32x64xf32>
}

// -----

// Ragged: 11 output columns, 40 filters, C = 48, stride 2, 7 output rows over two threads. The
// op is split into pieces that tile evenly (leftover vectors in powers of two, never a
// vector<24xf32>); every piece is vector code, nothing stays a linalg.conv.
// CHECK-LABEL: func.func @conv_ragged
//   CHECK-NOT:   nofold
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     vector.fma
//   CHECK-NOT:   linalg.conv
// AVX2: 11 columns as 8 (two 4-row tiles) + 3, 40 filters as 32 (two 16-wide tiles) + 8.
// V3-LABEL: func.func @conv_ragged
//   V3-NOT:   nofold
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//       V3:     scf.for {{.*}} -> (vector<1x4x8xf32>)
//       V3:       vector.fma {{.*}} : vector<8xf32>
//       V3:     scf.for {{.*}} -> (vector<1x3x16xf32>)
//       V3:     scf.for {{.*}} -> (vector<1x3x8xf32>)
//   V3-NOT:   linalg.conv
func.func @conv_ragged(%x: tensor<4x15x23x48xf32>, %w: tensor<3x3x48x40xf32>) -> tensor<4x7x11x40xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x7x11x40xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<4x7x11x40xf32>) -> tensor<4x7x11x40xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<4x15x23x48xf32>, tensor<3x3x48x40xf32>) outs(%z : tensor<4x7x11x40xf32>) -> tensor<4x7x11x40xf32>
  return %0 : tensor<4x7x11x40xf32>
}

// -----

// Depthwise NHWC: the conv nest with c parallel: vectors along the channels, accumulators held
// across the kh and kw loops, the 1-D depthwise convolution left by `decompose` as vector.fma.
// CHECK-LABEL: func.func @depthwise_nhwc
//       CHECK:     scf.for {{.*}} -> (vector<1x{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:       scf.for {{.*}} -> (vector<1x{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:         vector.fma {{.*}} : vector<8x32xf32>
//   CHECK-NOT:   linalg.depthwise_conv
// AVX2: 48 channels are three 16-wide tiles (no split).
// V3-LABEL: func.func @depthwise_nhwc
//       V3:   scf.for %{{.+}} = %c0 to %c48 step %c16
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:         vector.fma {{.*}} : vector<4x16xf32>
//   V3-NOT:   linalg.depthwise_conv
func.func @depthwise_nhwc(%x: tensor<1x18x18x48xf32>, %w: tensor<3x3x48xf32>) -> tensor<1x16x16x48xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x48xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x16x16x48xf32>) -> tensor<1x16x16x48xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x18x18x48xf32>, tensor<3x3x48xf32>) outs(%z : tensor<1x16x16x48xf32>) -> tensor<1x16x16x48xf32>
  return %0 : tensor<1x16x16x48xf32>
}

// -----

// An elementwise consumer (bias + relu) is the root: it is tiled, the matmul and its fill are
// fused into its loops, and each output tile gets the epilogue right after its k loop.
// CHECK-LABEL: func.func @matmul_epilogue
//       CHECK:   scf.forall
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         vector.fma
//       CHECK:         arith.addf {{.*}} : vector<{{[0-9]+}}xf32>
//       CHECK:         arith.maximumf {{.*}} : vector<{{[0-9]+}}xf32>
//       CHECK:   scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.matmul
// V3-LABEL: func.func @matmul_epilogue
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     tensor.empty() : tensor<16x32x4x16xf32>
//       V3:     scf.for {{.*}} -> (vector<4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//       V3:     scf.for %{{.+}} = %c0 to %c256 step %c8
//       V3:       arith.addf {{.*}} : vector<8xf32>
//       V3:       arith.maximumf {{.*}} : vector<8xf32>
//       V3:   scf.forall.in_parallel
//   V3-NOT:   linalg.generic
//   V3-NOT:   linalg.matmul
func.func @matmul_epilogue(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>, %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<256x256xf32>, tensor<256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %c : f32
    linalg.yield %r : f32
  } -> tensor<256x256xf32>
  return %1 : tensor<256x256xf32>
}

// -----

// A batch matmul's epilogue (enough work for two threads): batches across threads, then per
// batch the output tiles of the
// matmul strategy, each batch's epilogue vectorized while the batch's result is in cache.
// CHECK-LABEL: func.func @batch_matmul_epilogue
//       CHECK:   scf.forall
//       CHECK:     scf.for
//       CHECK:       vector.fma
//       CHECK:       arith.addf {{.*}} : vector<16xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<16xf32>
//       CHECK:   scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.batch_matmul
// SERIAL-LABEL: func.func @batch_matmul_epilogue
//   SERIAL-NOT:   scf.forall
//       SERIAL:   scf.for
//       SERIAL:     vector.fma
//       SERIAL:     arith.maximumf {{.*}} : vector<16xf32>
//   SERIAL-NOT:   linalg.batch_matmul
// V3-LABEL: func.func @batch_matmul_epilogue
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//       V3:     scf.for %{{.+}} = %c0 to %c256 step %c8
//       V3:       arith.addf {{.*}} : vector<8xf32>
//       V3:       arith.maximumf {{.*}} : vector<8xf32>
//       V3:   scf.forall.in_parallel
//   V3-NOT:   linalg.generic
//   V3-NOT:   linalg.batch_matmul
// V3-SERIAL-LABEL: func.func @batch_matmul_epilogue
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3-SERIAL:     vector.fma
//       V3-SERIAL:   arith.maximumf {{.*}} : vector<8xf32>
//   V3-SERIAL-NOT:   linalg.batch_matmul
func.func @batch_matmul_epilogue(%a: tensor<6x128x128xf32>, %b: tensor<6x128x256xf32>, %bias: tensor<256xf32>) -> tensor<6x128x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x128x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<6x128x256xf32>) -> tensor<6x128x256xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<6x128x128xf32>, tensor<6x128x256xf32>) outs(%z : tensor<6x128x256xf32>) -> tensor<6x128x256xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : tensor<256xf32>) outs(%0 : tensor<6x128x256xf32>) {
  ^bb0(%y: f32, %o: f32):
    %s = arith.addf %o, %y : f32
    %r = arith.maximumf %s, %c : f32
    linalg.yield %r : f32
  } -> tensor<6x128x256xf32>
  return %1 : tensor<6x128x256xf32>
}

// -----

// A conv's epilogue (bias + relu, the conv as its init as versa-fuse lowers it) is the root:
// tiled by threads and by output rows, the conv and its fill fused into the row loop, each
// row's epilogue vectorized right after the row's window loops; its ragged end (F = 40: 32 +
// 8) is split off at its own width. No second pass over the output.
// CHECK-LABEL: func.func @conv_epilogue
//       CHECK:   scf.forall
//       CHECK:     scf.for
//       CHECK:       vector.fma
//       CHECK:       arith.addf {{.*}} : vector<16xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<16xf32>
//       CHECK:       arith.addf {{.*}} : vector<8xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<8xf32>
//       CHECK:   scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.conv_2d
// SERIAL-LABEL: func.func @conv_epilogue
//   SERIAL-NOT:   scf.forall
//       SERIAL:   scf.for
//       SERIAL:     vector.fma
//       SERIAL:     arith.maximumf {{.*}} : vector<16xf32>
// AVX2: F = 40 is 32 (two 16-wide tiles) + 8 for the conv, five vectors for the epilogue.
// V3-LABEL: func.func @conv_epilogue
//       V3:   scf.forall (%{{.+}}) in (8)
//       V3:     scf.for {{.*}} -> (vector<1x4x16xf32>)
//       V3:       vector.fma {{.*}} : vector<16xf32>
//       V3:     scf.for {{.*}} -> (vector<1x4x8xf32>)
//       V3:       vector.fma {{.*}} : vector<8xf32>
//       V3:     scf.for %{{.+}} = %c0 to %c40 step %c8
//       V3:       arith.addf {{.*}} : vector<8xf32>
//       V3:       arith.maximumf {{.*}} : vector<8xf32>
//       V3:   } {versa.serial}
//   V3-NOT:   linalg.generic
//   V3-NOT:   linalg.conv_2d
// V3-SERIAL-LABEL: func.func @conv_epilogue
//       V3-SERIAL:   scf.forall (%{{.+}}) in (8)
//       V3-SERIAL:     vector.fma
//       V3-SERIAL:     arith.maximumf {{.*}} : vector<8xf32>
//       V3-SERIAL:   } {versa.serial}
func.func @conv_epilogue(%x: tensor<1x10x14x8xf32>, %w: tensor<3x3x8x40xf32>, %bias: tensor<40xf32>) -> tensor<1x8x12x40xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x12x40xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1x8x12x40xf32>) -> tensor<1x8x12x40xf32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x10x14x8xf32>, tensor<3x3x8x40xf32>) outs(%z : tensor<1x8x12x40xf32>) -> tensor<1x8x12x40xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<40xf32>) outs(%0 : tensor<1x8x12x40xf32>) {
  ^bb0(%y: f32, %o: f32):
    %s = arith.addf %o, %y : f32
    %r = arith.maximumf %s, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x8x12x40xf32>
  return %1 : tensor<1x8x12x40xf32>
}

// -----

// A row reduction: rows across threads, a few rows at a time (several streams from memory)
// reduced in vector-wide partial sums (kept in registers across the loop), then one
// horizontal reduction per row.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     scf.for {{.*}} step %[[R:c[0-9]+]]
//       CHECK:       scf.for {{.*}} iter_args(%{{.+}} = %{{.+}}) -> (vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:         arith.addf {{.*}} : vector<{{[0-9]+}}x{{[0-9]+}}xf32>
//       CHECK:       vector.reduction <add>
//       CHECK:       vector.reduction <add>
//   CHECK-NOT:   linalg.generic
// AVX2: two rows at a time, four vectors of 8 each (8 partial sums).
// V3-LABEL: func.func @row_sum
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for {{.*}} step %c2
//       V3:       scf.for {{.*}} step %c32 iter_args(%{{.+}} = %{{.+}}) -> (vector<2x32xf32>)
//       V3:         arith.addf {{.*}} : vector<2x32xf32>
//       V3:       vector.reduction <add>, %{{.+}} : vector<32xf32> into f32
//       V3:       vector.reduction <add>, %{{.+}} : vector<32xf32> into f32
//   V3-NOT:   linalg.generic
func.func @row_sum(%x: tensor<64x256xf32>) -> tensor<64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// A keepdim row sum, (d0, d1, 0) result: its tiled partial sums (d0, d1, 0, d2) do not
// vectorize, so the row strategy leaves it whole (versa-collapse-reductions drops the unit
// dim first in lower-to-llvm); it never fails the pass.
// CHECK-LABEL: func.func @negative_row_sum_keepdim
//   CHECK-NOT:   scf.forall
//       CHECK:   linalg.generic {{.+}} outs(%{{.+}} : tensor<2x37x1xf32>)
//   CHECK-NOT:   vector.
//       CHECK:   return
// V3-LABEL: func.func @negative_row_sum_keepdim
//   V3-NOT:   scf.forall
//       V3:   linalg.generic {{.+}} outs(%{{.+}} : tensor<2x37x1xf32>)
//   V3-NOT:   vector.
//       V3:   return
func.func @negative_row_sum_keepdim(%x: tensor<2x37x96xf32>) -> tensor<2x37x1xf32> {
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

// A column reduction (over the outer dim): columns across the threads, 8 rows at a time added
// into a few vectors of the output, rows read in address order; no horizontal reduction.
// CHECK-LABEL: func.func @column_sum
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     scf.for {{.*}} step %c8
//       CHECK:       scf.for
//       CHECK:         vector.transfer_read {{.*}} vector<8x{{[0-9]+}}xf32>
//       CHECK:         arith.addf {{.*}} : vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   vector.multi_reduction
//   CHECK-NOT:   vector.reduction
// SERIAL-LABEL: func.func @column_sum
//   SERIAL-NOT:   scf.forall
//       SERIAL:   vector<8x{{[0-9]+}}xf32>
// V3-LABEL: func.func @column_sum
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for {{.*}} step %c8
//       V3:       scf.for {{.*}} step %c32
//       V3:         vector.transfer_read {{.*}} vector<8x32xf32>
//       V3:         arith.addf {{.*}} : vector<32xf32>
//   V3-NOT:   vector.multi_reduction
//   V3-NOT:   vector.reduction
// V3-SERIAL-LABEL: func.func @column_sum
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   vector<8x32xf32>
func.func @column_sum(%x: tensor<256x1024xf32>) -> tensor<1024xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<256x1024xf32>) outs(%z : tensor<1024xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// A row that no vector width divides: the first 16 of each row as one vector, the last 14 as
// another (no scalar loop is left).
// CHECK-LABEL: func.func @ragged_row
//       CHECK:   vector.transfer_read %{{.+}} : tensor<16x16xf32>, vector<16x16xf32>
//       CHECK:   vector.transfer_read %{{.+}} : tensor<16x14xf32>, vector<16x14xf32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   return
// V3-LABEL: func.func @ragged_row
//       V3:   vector.transfer_read %{{.+}} : tensor<4x16xf32>, vector<4x16xf32>
//       V3:   vector.transfer_read %{{.+}} : tensor<4x14xf32>, vector<4x14xf32>
//   V3-NOT:   linalg.generic
//       V3:   return
func.func @ragged_row(%x: tensor<64x30xf32>) -> tensor<64xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x30xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// transpose: 16x16 register tiles (full-line reads and writes), transposed by a shuffle
// network, in 64x64 blocks (each thread's 64 rows; the block's input lines stay in cache and
// TLB); rows of tiles across the two threads.
// CHECK-LABEL: func.func @transpose
//       CHECK:   scf.forall
//       CHECK:     scf.for {{.*}} -> (tensor<64x256xf32>)
//       CHECK:       scf.for {{.*}} -> (tensor<64x64xf32>)
//       CHECK:     vector.transfer_read {{.*}} vector<16x16xf32>
//       CHECK:     vector.shuffle
//       CHECK:     vector.transfer_write {{.*}} : vector<16x16xf32>
//   CHECK-NOT:   linalg.transpose
// SERIAL-LABEL: func.func @transpose
//   SERIAL-NOT:   scf.forall
//       SERIAL:   vector.shuffle
// AVX2: 8x8 tiles (a line of 8 floats each way), transposed as one shuffle of the flattened
// tile (`shuffle_1d`), in the same 64x64 blocks.
// V3-LABEL: func.func @transpose
//       V3:   scf.forall
//       V3:     scf.for {{.*}} -> (tensor<64x256xf32>)
//       V3:       scf.for {{.*}} step %c8 {{.*}} -> (tensor<64x64xf32>)
//       V3:         scf.for {{.*}} step %c8 {{.*}} -> (tensor<64x64xf32>)
//       V3:           vector.transfer_read {{.*}} vector<8x8xf32>
//       V3:           vector.shape_cast {{.*}} : vector<8x8xf32> to vector<64xf32>
//       V3:           vector.shuffle {{.*}} [0, 8, 16, 24, 32, 40, 48, 56, 1, 9,
//       V3:           vector.transfer_write {{.*}} : vector<8x8xf32>
//   V3-NOT:   linalg.transpose
// V3-SERIAL-LABEL: func.func @transpose
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   vector.shuffle
func.func @transpose(%x: tensor<256x128xf32>) -> tensor<128x256xf32> {
  %e = tensor.empty() : tensor<128x256xf32>
  %0 = linalg.transpose ins(%x : tensor<256x128xf32>) outs(%e : tensor<128x256xf32>) permutation = [1, 0]
  return %0 : tensor<128x256xf32>
}

// -----

// max pooling: the window loops move outside the output column (interchange), so the
// innermost loop streams a row; batches across threads.
// CHECK-LABEL: func.func @max_pool
//       CHECK:   scf.forall
//       CHECK:     linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK-LABEL: func.func @negative_transpose_keeps_rows
//       CHECK:   linalg.transpose
// V3-LABEL: func.func @max_pool
//       V3:   scf.forall
//       V3:     linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// V3-LABEL: func.func @negative_transpose_keeps_rows
//       V3:   linalg.transpose
func.func @max_pool(%x: tensor<8x16x64x64xf32>) -> tensor<8x16x32x32xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x16x32x32xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<8x16x64x64xf32>, tensor<2x2xf32>) outs(%f : tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32>
  return %0 : tensor<8x16x32x32xf32>
}
func.func @negative_transpose_keeps_rows(%x: tensor<64x8x32xf32>) -> tensor<8x64x32xf32> {
  %e = tensor.empty() : tensor<8x64x32xf32>
  %0 = linalg.transpose ins(%x : tensor<64x8x32xf32>) outs(%e : tensor<8x64x32xf32>) permutation = [1, 0, 2]
  return %0 : tensor<8x64x32xf32>
}

// -----

// A window reduction (the interior of a pool, as pool-views writes it: a reduction over a
// [N, C, OH, s, OW, s] view): batches across threads, one output row per tile, its fill fused
// (max with the -inf fill folds away); each tile reads its two input rows as one vector<2x32x2>
// (contiguous), de-interleaves the stride in registers and folds it with vector max.
// CHECK-LABEL: func.func @window_max
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         scf.for
//       CHECK:           %[[ROWS:.+]] = vector.transfer_read {{.+}} : tensor<1x1x1x2x32x2xf32>, vector<2x32x2xf32>
//       CHECK:           vector.transpose
//       CHECK:           arith.maximumf {{.+}} : vector<32xf32>
//       CHECK:           vector.transfer_write {{.+}} : vector<32xf32>, tensor<1x1x1x32xf32>
//   CHECK-NOT:   linalg.generic
// SERIAL-LABEL: func.func @window_max
//   SERIAL-NOT:   scf.forall
//       SERIAL:   vector.transfer_read {{.+}} vector<2x32x2xf32>
// The same tiles on AVX2 (a row of 32 outputs: four vectors of 8).
// V3-LABEL: func.func @window_max
//       V3:   scf.forall (%{{.+}}) in (2)
//       V3:     scf.for
//       V3:       scf.for
//       V3:         scf.for
//       V3:           vector.transfer_read {{.+}} : tensor<1x1x1x2x32x2xf32>, vector<2x32x2xf32>
//       V3:           vector.transpose
//       V3:           arith.maximumf {{.+}} : vector<32xf32>
//       V3:           vector.transfer_write {{.+}} : vector<32xf32>, tensor<1x1x1x32xf32>
//   V3-NOT:   linalg.generic
// V3-SERIAL-LABEL: func.func @window_max
//   V3-SERIAL-NOT:   scf.forall
//       V3-SERIAL:   vector.transfer_read {{.+}} vector<2x32x2xf32>
func.func @window_max(%x: tensor<8x16x64x64xf32>) -> tensor<8x16x32x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x16x32x32xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<8x16x32x32xf32>) -> tensor<8x16x32x32xf32>
  %v = tensor.expand_shape %x [[0], [1], [2, 3], [4, 5]] output_shape [8, 16, 32, 2, 32, 2] : tensor<8x16x64x64xf32> into tensor<8x16x32x2x32x2xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, r, w, s) -> (n, c, h, r, w, s)>, affine_map<(n, c, h, r, w, s) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]}
      ins(%v : tensor<8x16x32x2x32x2xf32>) outs(%f : tensor<8x16x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<8x16x32x32xf32>
  return %0 : tensor<8x16x32x32xf32>
}

// -----

// A trailing reduce (every loop after the first reduced one is reduced) is no window: no
// vector across a kept dim exists, and this one (two reduced loops) is left to the loops.
// CHECK-LABEL: func.func @negative_window_trailing_reduce
//   CHECK-NOT:   vector.transfer_read
//       CHECK:   linalg.generic
// V3-LABEL: func.func @negative_window_trailing_reduce
//   V3-NOT:   vector.transfer_read
//       V3:   linalg.generic
func.func @negative_window_trailing_reduce(%x: tensor<64x4x128xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, r, j) -> (i, r, j)>, affine_map<(i, r, j) -> (i)>],
                       iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<64x4x128xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// Ops without iteration points (a static extent 0: M, N or K of a matmul, the batch of a conv)
// get no strategy, so no transform script: their tile sizes would divide by 0 (matmul) or the
// interpreter would crash (conv). They stay linalg ops, for the plain loop lowering.
// CHECK-LABEL: func.func @empty_iteration_spaces
//       CHECK:   linalg.matmul {{.*}} -> tensor<4x0xf32>
//       CHECK:   linalg.matmul {{.*}} -> tensor<4x8xf32>
//       CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<0x8x8x16xf32>
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   vector.
//   CHECK-NOT:   versa.codegen
// SERIAL-LABEL: func.func @empty_iteration_spaces
//   SERIAL-NOT:   vector.
// V3-LABEL: func.func @empty_iteration_spaces
//       V3:   linalg.matmul {{.*}} -> tensor<4x0xf32>
//       V3:   linalg.matmul {{.*}} -> tensor<4x8xf32>
//       V3:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<0x8x8x16xf32>
//   V3-NOT:   scf.forall
//   V3-NOT:   vector.
// V3-SERIAL-LABEL: func.func @empty_iteration_spaces
//   V3-SERIAL-NOT:   vector.
func.func @empty_iteration_spaces(%a: tensor<4x16xf32>, %b: tensor<16x0xf32>, %ak: tensor<4x0xf32>, %bk: tensor<0x8xf32>,
                                  %x: tensor<0x10x10x16xf32>, %w: tensor<3x3x16x16xf32>)
    -> (tensor<4x0xf32>, tensor<4x8xf32>, tensor<0x8x8x16xf32>) {
  %c = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x0xf32>
  %z0 = linalg.fill ins(%c : f32) outs(%e0 : tensor<4x0xf32>) -> tensor<4x0xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x0xf32>) outs(%z0 : tensor<4x0xf32>) -> tensor<4x0xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %z1 = linalg.fill ins(%c : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.matmul ins(%ak, %bk : tensor<4x0xf32>, tensor<0x8xf32>) outs(%z1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<0x8x8x16xf32>
  %z2 = linalg.fill ins(%c : f32) outs(%e2 : tensor<0x8x8x16xf32>) -> tensor<0x8x8x16xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<0x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%z2 : tensor<0x8x8x16xf32>) -> tensor<0x8x8x16xf32>
  return %0, %1, %2 : tensor<4x0xf32>, tensor<4x8xf32>, tensor<0x8x8x16xf32>
}
