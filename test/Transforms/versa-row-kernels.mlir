// RUN: versa-opt --versa-row-kernels="threads=2 target=x86-64-v4" --inline --symbol-dce %s | FileCheck %s
// RUN: versa-opt --versa-row-kernels="threads=2 target=x86-64-v3" --inline --symbol-dce %s | FileCheck %s --check-prefix=V3
// RUN: versa-opt --versa-row-kernels %s | FileCheck %s --check-prefix=CALL

// A kernel over dynamic dims fills a buffer its caller makes (a shared kernel must not allocate
// its result): @softmax_dynamic's, at the end of this file.
// CALL: func.func private @versa_softmax_{{[0-9]+}}(%{{.*}}: tensor<?x4x?xf32> {bufferization.writable = true}, %{{.*}}: tensor<?x4x?xf32>)

// Softmax over the last axis, rows of 1000 (five rows fit L1): software-pipelined per thread's
// chunk of rows. A max pass over the chunk's first row; one pass for row 0 (its exp into half
// 0 of a per-chunk scratch tensor<2x1000xf32>, summed four ways, and row 1's max); the row
// loop from 1, each step one pass doing row r's exp into the scratch, row r+1's max, and row
// r-1 scaled from the other half into the output (1000 = 15 x 64 + 2 x 16 unrolled + a masked
// tail of 8); then the chunk's last row scaled (no exp). Rows in two chunks across threads.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: %[[SCRATCH:.+]] = tensor.empty() : tensor<2x1000xf32>
// CHECK: scf.for {{.*}} to %c960 step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %c976], %{{.*}} {in_bounds = [true]}
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %c992], %{{.*}} : tensor<?x1000xf32>, vector<16xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[SCRATCH]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, tensor<2x1000xf32>)
// CHECK: math.exp
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x1000xf32>
// CHECK: arith.maximumf
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc>
// CHECK: vector.reduction <maximumf>
// CHECK: %[[ROWS:.+]]:4 = scf.for %{{.*}} = %c1 to {{.*}} -> (tensor<?x1000xf32>, tensor<2x1000xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for {{.*}} to %c960 step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, tensor<2x1000xf32>, tensor<?x1000xf32>)
// CHECK: math.exp
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<2x1000xf32>
// CHECK: arith.maximumf
// CHECK: vector.transfer_read {{.*}} : tensor<2x1000xf32>, vector<16xf32>
// CHECK: arith.mulf
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, tensor<?x1000xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c992] : vector<16xf32>, tensor<?x1000xf32>
// CHECK: vector.reduction <add>
// CHECK: scf.yield {{.*}} : tensor<?x1000xf32>, tensor<2x1000xf32>, vector<16xf32>, vector<16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ROWS]]#0) -> (tensor<?x1000xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf %{{.*}}, %[[ROWS]]#3
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c992] : vector<16xf32>, tensor<?x1000xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: versa.softmax
// CALL-LABEL: func.func @softmax
// CALL: call @versa_softmax_0(%{{.*}}) : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
// AVX2: the same pipeline in vectors of 8, four a step (1000 = 31 x 32 + one vector at 992:
// no masked tail).
// V3-LABEL: func.func @softmax
// V3: scf.forall (%{{.*}}) in (2)
// V3: %[[SCRATCH:.+]] = tensor.empty() : tensor<2x1000xf32>
// V3: scf.for {{.*}} to %c992 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// V3: arith.maximumf {{.*}} : vector<8xf32>
// V3: vector.transfer_read %{{.*}}[%{{.*}}, %c992], %{{.*}} {in_bounds = [true]} : tensor<?x1000xf32>, vector<8xf32>
// V3: vector.reduction <maximumf>
// V3: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[SCRATCH]]) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, tensor<2x1000xf32>)
// V3: math.exp
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %{{.*}}] {in_bounds = [true]} : vector<8xf32>, tensor<2x1000xf32>
// V3: arith.maximumf
// V3: vector.reduction <add>, %{{.*}} fastmath<reassoc>
// V3: vector.reduction <maximumf>
// V3: %[[ROWS:.+]]:4 = scf.for %{{.*}} = %c1 to {{.*}} -> (tensor<?x1000xf32>, tensor<2x1000xf32>, vector<8xf32>, vector<8xf32>)
// V3: scf.for {{.*}} to %c992 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, tensor<2x1000xf32>, tensor<?x1000xf32>)
// V3: math.exp
// V3: vector.transfer_write {{.*}} : vector<8xf32>, tensor<2x1000xf32>
// V3: arith.maximumf
// V3: vector.transfer_read {{.*}} : tensor<2x1000xf32>, vector<8xf32>
// V3: arith.mulf
// V3: vector.transfer_write {{.*}} : vector<8xf32>, tensor<?x1000xf32>
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c992] {in_bounds = [true]} : vector<8xf32>, tensor<?x1000xf32>
// V3: vector.reduction <add>
// V3: scf.yield {{.*}} : tensor<?x1000xf32>, tensor<2x1000xf32>, vector<8xf32>, vector<8xf32>
// V3: scf.for {{.*}} = %c0 to %c1000 step %c8 iter_args(%{{.*}} = %[[ROWS]]#0) -> (tensor<?x1000xf32>)
// V3-NOT: math.exp
// V3: arith.mulf %{{.*}}, %[[ROWS]]#3
// V3: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<8xf32>, tensor<?x1000xf32>
// V3: tensor.parallel_insert_slice
// V3-NOT: versa.softmax
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}

// Long rows (4008: five rows exceed L1) with x and the output past half the last-level cache
// (2 GB: past it on any machine):
// three passes per row: a max pass, a pass writing e = exp(x - max) to the output and summing
// it, then the written row scaled by 1 / sum in cache (one exp per element). 4008 is not a
// multiple of 16, so each pass over row r is aligned (passes/row_aligned.py): a head of
// h = -(r * 4008) mod 16 columns as one vector whose mask is an operand of its transfers, full
// vectors from h (reductions four a step into four accumulators, then single vectors to
// h + (4008 - h) / 16 * 16), and a masked tail from there.
// CHECK-LABEL: func.func @softmax_long_rows
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK-NOT: tensor<2x4008xf32>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK: %[[ROW:.+]] = arith.addi
// CHECK: %[[PHASE:.+]] = arith.muli %[[ROW]], %c8 : index
// CHECK: %[[MOD:.+]] = arith.remui %[[PHASE]], %c16 : index
// CHECK: %[[NEG:.+]] = arith.subi %c16, %[[MOD]] : index
// CHECK: %[[HEAD:.+]] = arith.remui %[[NEG]], %c16 : index
// CHECK: %[[HMASK:.+]] = vector.create_mask %[[HEAD]] : vector<16xi1>
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %c0], %{{.*}}, %[[HMASK]] {in_bounds = [true]}
// CHECK: %[[BLOCKS:.+]] = arith.addi %[[HEAD]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[HEAD]] to %[[BLOCKS]] step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: %[[VECTORS:.+]] = arith.addi %[[HEAD]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[BLOCKS]] to %[[VECTORS]] step %c16 {{.*}} -> (vector<16xf32>)
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %[[VECTORS]]], %{{.*}} : tensor<?x4008xf32>, vector<16xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: %[[EMASK:.+]] = vector.create_mask %[[HEAD]] : vector<16xi1>
// CHECK: math.exp
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0], %[[EMASK]] {in_bounds = [true]}
// CHECK: scf.for %{{.*}} = %[[HEAD]] to %{{.*}} step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, tensor<?x4008xf32>)
// CHECK: math.exp
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]}
// CHECK: scf.for {{.*}} step %c16 {{.*}} -> (vector<16xf32>, tensor<?x4008xf32>)
// CHECK: math.exp
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<16xf32>, tensor<?x4008xf32>
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc>
// CHECK: %[[SMASK:.+]] = vector.create_mask %[[HEAD]] : vector<16xi1>
// CHECK-NOT: math.exp
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0], %[[SMASK]] {in_bounds = [true]}
// CHECK: scf.for %{{.*}} = %[[HEAD]] to %{{.*}} step %c16 {{.*}} -> (tensor<?x4008xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, tensor<?x4008xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<16xf32>, tensor<?x4008xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: versa.softmax
// AVX2: 4008 is a multiple of 8, so every row starts on a vector boundary: no head, no masks,
// loops with constant bounds (4000 = 125 x 32, then one vector at 4000).
// V3-LABEL: func.func @softmax_long_rows
// V3: scf.forall (%{{.*}}) in (2)
// V3-NOT: tensor<2x4008xf32>
// V3-NOT: vector.create_mask
// V3: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// V3: scf.for %{{.*}} = %c0 to %c4000 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// V3: arith.maximumf {{.*}} : vector<8xf32>
// V3: vector.transfer_read %{{.*}}[%{{.*}}, %c4000], %{{.*}} {in_bounds = [true]} : tensor<?x4008xf32>, vector<8xf32>
// V3: vector.reduction <maximumf>
// V3: scf.for %{{.*}} = %c0 to %c4000 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, tensor<?x4008xf32>)
// V3: math.exp
// V3: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<8xf32>, tensor<?x4008xf32>
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c4000] {in_bounds = [true]} : vector<8xf32>, tensor<?x4008xf32>
// V3: vector.reduction <add>, %{{.*}} fastmath<reassoc>
// V3-NOT: math.exp
// V3: scf.for %{{.*}} = %c0 to %c4008 step %c8 {{.*}} -> (tensor<?x4008xf32>)
// V3-NOT: math.exp
// V3: arith.mulf
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<8xf32>, tensor<?x4008xf32>
// V3: tensor.parallel_insert_slice
// V3-NOT: vector.create_mask
// V3-NOT: versa.softmax
func.func @softmax_long_rows(%x: tensor<65536x4008xf32>) -> tensor<65536x4008xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<65536x4008xf32>) -> tensor<65536x4008xf32>
  return %0 : tensor<65536x4008xf32>
}

// Rows a vector divides (4096) start on vector boundaries: no head, loops with constant bounds.
// CHECK-LABEL: func.func @softmax_long_aligned_rows
// CHECK-NOT: vector.create_mask
// CHECK: scf.for {{.*}} = %c0 to %c4096 step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NOT: vector.create_mask
// CHECK: tensor.parallel_insert_slice
// V3-LABEL: func.func @softmax_long_aligned_rows
// V3-NOT: vector.create_mask
// V3: scf.for {{.*}} = %c0 to %c4096 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// V3-NOT: vector.create_mask
// V3: tensor.parallel_insert_slice
func.func @softmax_long_aligned_rows(%x: tensor<65536x4096xf32>) -> tensor<65536x4096xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<65536x4096xf32>) -> tensor<65536x4096xf32>
  return %0 : tensor<65536x4096xf32>
}

// layer_norm over the two trailing axes: rows of 2x48 collapsed to 96, three passes over each
// cached row (mean, variance, the normalised write); gamma and beta collapsed alike.
// CHECK-LABEL: func.func @layer_norm
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<4x2x48xf32> into tensor<4x96xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x48xf32> into tensor<96xf32>
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: math.sqrt
// CHECK: math.fma
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 2, 48]
// V3-LABEL: func.func @layer_norm
// V3: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<4x2x48xf32> into tensor<4x96xf32>
// V3: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x48xf32> into tensor<96xf32>
// V3: scf.forall (%{{.*}}) in (2)
// V3: scf.for {{.*}} to %c96 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// V3: math.sqrt
// V3: math.fma {{.*}} : vector<8xf32>
// V3: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 2, 48]
func.func @layer_norm(%x: tensor<4x2x48xf32>, %g: tensor<2x48xf32>, %b: tensor<2x48xf32>) -> tensor<4x2x48xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<4x2x48xf32>, tensor<2x48xf32>, tensor<2x48xf32>) -> tensor<4x2x48xf32>
  return %0 : tensor<4x2x48xf32>
}

// Not a trailing-axis softmax: left for convert-versa-to-linalg (f16/bf16: versa-half-math.mlir).
// CHECK-LABEL: func.func @negative_leading_axis
// CHECK: versa.softmax
// V3-LABEL: func.func @negative_leading_axis
// V3: versa.softmax
func.func @negative_leading_axis(%x: tensor<6x5xf32>) -> tensor<6x5xf32> {
  %0 = "versa.softmax"(%x) {axis = 0 : i64} : (tensor<6x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// Tensors without elements: no rows to split across threads (an out-of-bounds thread slice)
// or rows of length 0 (layer_norm's 1 / length): left for convert-versa-to-linalg.
// CHECK-LABEL: func.func @negative_empty
// CHECK: versa.softmax
// CHECK: versa.softmax
// CHECK: versa.layer_norm
// CHECK: versa.layer_norm
// CALL-LABEL: func.func @negative_empty
// CALL-NOT: call
// V3-LABEL: func.func @negative_empty
// V3: versa.softmax
// V3: versa.softmax
// V3: versa.layer_norm
// V3: versa.layer_norm
func.func @negative_empty(%x: tensor<2x0xf32>, %y: tensor<0x16xf32>, %g: tensor<0xf32>, %h: tensor<16xf32>)
    -> (tensor<2x0xf32>, tensor<0x16xf32>, tensor<2x0xf32>, tensor<0x16xf32>) {
  %0 = "versa.softmax"(%x) {axis = 1 : i64} : (tensor<2x0xf32>) -> tensor<2x0xf32>
  %1 = "versa.softmax"(%y) {axis = 1 : i64} : (tensor<0x16xf32>) -> tensor<0x16xf32>
  %2 = "versa.layer_norm"(%x, %g, %g) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x0xf32>, tensor<0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
  %3 = "versa.layer_norm"(%y, %h, %h) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<0x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<0x16xf32>
  return %0, %1, %2, %3 : tensor<2x0xf32>, tensor<0x16xf32>, tensor<2x0xf32>, tensor<0x16xf32>
}

// Attention scores: softmax(x * scale + mask) with the producers in a fused group. The kernel
// reads x and the mask (row r of x reads mask row r mod 128) and applies the producers per
// vector, inlined into every read: the scaled and masked scores are never written. The scale,
// one element, is read once and splat.
// CHECK-LABEL: func.func @softmax_producers
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x4x128x128xf32> into tensor<1024x128xf32>
// CHECK: %[[SCALE:.+]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[SPLAT:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<16xf32>
// CHECK: scf.forall
// CHECK: %[[ROW:.+]] = arith.remui %{{.*}}, %c128 : index
// CHECK: %[[M:.+]] = vector.transfer_read %{{.*}}[%[[ROW]], %{{.*}}]{{.*}} : tensor<128x128xf32>, vector<16xf32>
// CHECK: %[[S:.+]] = arith.mulf %{{.*}}, %[[SPLAT]] : vector<16xf32>
// CHECK: arith.addf %[[S]], %[[M]] : vector<16xf32>
// CHECK: arith.maximumf
// CHECK-NOT: versa.fused
// CHECK-NOT: versa.mul
// CALL-LABEL: func.func @softmax_producers
// CALL-NOT: versa.fused
// CALL: call @versa_softmax_{{[0-9]+}}(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x128x128xf32>, tensor<f32>, tensor<128x128xf32>) -> tensor<2x4x128x128xf32>
// V3-LABEL: func.func @softmax_producers
// V3: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<2x4x128x128xf32> into tensor<1024x128xf32>
// V3: %[[SCALE:.+]] = tensor.extract %{{.*}}[] : tensor<f32>
// V3: %[[SPLAT:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<8xf32>
// V3: scf.forall
// V3: %[[ROW:.+]] = arith.remui %{{.*}}, %c128 : index
// V3: %[[M:.+]] = vector.transfer_read %{{.*}}[%[[ROW]], %{{.*}}]{{.*}} : tensor<128x128xf32>, vector<8xf32>
// V3: %[[S:.+]] = arith.mulf %{{.*}}, %[[SPLAT]] : vector<8xf32>
// V3: arith.addf %[[S]], %[[M]] : vector<8xf32>
// V3: arith.maximumf
// V3-NOT: versa.fused
// V3-NOT: versa.mul
func.func @softmax_producers(%x: tensor<2x4x128x128xf32>, %m: tensor<128x128xf32>) -> tensor<2x4x128x128xf32> {
  %s = "versa.constant"() {value = dense<0.125> : tensor<f32>} : () -> tensor<f32>
  %0 = "versa.fused"() ({
    %1 = "versa.mul"(%x, %s) : (tensor<2x4x128x128xf32>, tensor<f32>) -> tensor<2x4x128x128xf32>
    %2 = "versa.add"(%1, %m) : (tensor<2x4x128x128xf32>, tensor<128x128xf32>) -> tensor<2x4x128x128xf32>
    "versa.yield"(%2) : (tensor<2x4x128x128xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<2x4x128x128xf32>
  %3 = "versa.softmax"(%0) {axis = -1 : i64} : (tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xf32>
  return %3 : tensor<2x4x128x128xf32>
}

// Producers stay their own loop nest when their result has another user, or when an input is
// broadcast over some row dims only (a mask [2, 1, 128, 128] under [2, 4, 128, 128]).
// CHECK-LABEL: func.func @negative_producer_with_two_users
// CHECK: "versa.mul"
// CHECK-LABEL: func.func @negative_producer_partial_broadcast
// CHECK: "versa.add"
// V3-LABEL: func.func @negative_producer_with_two_users
// V3: "versa.mul"
// V3-LABEL: func.func @negative_producer_partial_broadcast
// V3: "versa.add"
func.func @negative_producer_with_two_users(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = "versa.mul"(%x, %x) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = "versa.softmax"(%0) {axis = -1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}
func.func @negative_producer_partial_broadcast(%x: tensor<2x4x128x128xf32>, %m: tensor<2x1x128x128xf32>) -> tensor<2x4x128x128xf32> {
  %0 = "versa.add"(%x, %m) : (tensor<2x4x128x128xf32>, tensor<2x1x128x128xf32>) -> tensor<2x4x128x128xf32>
  %1 = "versa.softmax"(%0) {axis = -1 : i64} : (tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xf32>
  return %1 : tensor<2x4x128x128xf32>
}

// Consumers (the normalised row times a scale, then relu; a fused group, the kernel's only
// reader): applied to each vector the kernel writes, so the normalised row is never written.
// CHECK-LABEL: func.func @layer_norm_consumers
// CHECK: math.fma
// CHECK: %[[S:.+]] = vector.transfer_read %{{.*}} : tensor<1x64xf32>, vector<16xf32>
// CHECK: %[[Y:.+]] = arith.mulf %{{.*}}, %[[S]] : vector<16xf32>
// CHECK: %[[R:.+]] = arith.maximumf %[[Y]], %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %[[R]]
// CHECK-NOT: versa.
// CALL-LABEL: func.func @layer_norm_consumers
// CALL: call @versa_layer_norm_{{[0-9]+}}(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
// CALL-NOT: versa.fused
// V3-LABEL: func.func @layer_norm_consumers
// V3: math.fma
// V3: %[[S:.+]] = vector.transfer_read %{{.*}} : tensor<1x64xf32>, vector<8xf32>
// V3: %[[Y:.+]] = arith.mulf %{{.*}}, %[[S]] : vector<8xf32>
// V3: %[[R:.+]] = arith.maximumf %[[Y]], %{{.*}} : vector<8xf32>
// V3: vector.transfer_write %[[R]]
// V3-NOT: versa.
func.func @layer_norm_consumers(%x: tensor<8x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %1 = "versa.fused"() ({
    %2 = "versa.mul"(%0, %s) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
    %3 = "versa.relu"(%2) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    "versa.yield"(%3) : (tensor<8x64xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<8x64xf32>
  return %1 : tensor<8x64xf32>
}

// A kernel result that is also returned keeps its consumer apart.
// CHECK-LABEL: func.func @negative_consumer_of_a_returned_result
// CHECK: "versa.relu"
// V3-LABEL: func.func @negative_consumer_of_a_returned_result
// V3: "versa.relu"
func.func @negative_consumer_of_a_returned_result(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = "versa.relu"(%0) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// Dynamic rows and a dynamic row (attention's scores, batch and key length `?`): one kernel
// for every size. Its extents are read from the input; rows split into as many chunks as
// there are threads and rows (none for no rows), each pipelined as above; a pass takes full
// blocks of four vectors and single vectors to the call's length, then the masked tail only
// where there is one (an scf.if: bounds-checked transfers).
// CHECK-LABEL: func.func @softmax_dynamic
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x4x?xf32>
// CHECK: %[[B:.+]] = tensor.dim %{{.*}}, %c0 : tensor<?x4x?xf32>
// CHECK: %[[N:.+]] = tensor.dim %{{.*}}, %c2 : tensor<?x4x?xf32>
// CHECK: %[[ROWS:.+]] = arith.muli %[[B]], %c4 : index
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
// CHECK: %[[SHARE:.+]] = arith.ceildivui %[[ROWS]], %c2 : index
// CHECK: %[[CHUNK:.+]] = arith.maxui %[[SHARE]], %c1 : index
// CHECK: %[[TRIPS:.+]] = arith.ceildivui %[[ROWS]], %[[CHUNK]] : index
// CHECK: scf.forall (%{{.*}}) in (%[[TRIPS]])
// CHECK: tensor.empty(%[[N]]) : tensor<2x?xf32>
// CHECK: %[[VECTORS:.+]] = arith.muli %{{.*}}, %c16 : index
// CHECK: %[[BLOCKS:.+]] = arith.muli %{{.*}}, %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[BLOCKS]] step %c64 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for %{{.*}} = %[[BLOCKS]] to %[[VECTORS]] step %c16 {{.*}} -> (vector<16xf32>)
// CHECK: %[[LEFT:.+]] = arith.subi %[[N]], %[[VECTORS]] : index
// CHECK: %[[SOME:.+]] = arith.cmpi ugt, %[[LEFT]], %c0 : index
// CHECK: scf.if %[[SOME]] -> (vector<16xf32>)
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %[[VECTORS]]], %{{.*}} : tensor<?x?xf32>, vector<16xf32>
// CHECK: math.exp
// CHECK: tensor.parallel_insert_slice
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%[[B]], 4, %[[N]]] : tensor<?x?xf32> into tensor<?x4x?xf32>
// The kernel fills a buffer its caller makes (its signature is checked at the top: kernels
// are defined at the start of the module, the last one first).
// CALL-LABEL: func.func @softmax_dynamic
// CALL: %[[OUT:.+]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x4x?xf32>
// CALL: call @versa_softmax_{{[0-9]+}}(%[[OUT]], %{{.*}}) : (tensor<?x4x?xf32>, tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
// V3-LABEL: func.func @softmax_dynamic
// V3: scf.for %{{.*}} step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// V3: scf.if
// V3: vector.transfer_read %{{.*}} : tensor<?x?xf32>, vector<8xf32>
func.func @softmax_dynamic(%x: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  return %0 : tensor<?x4x?xf32>
}

// A layer_norm's rows dynamic, its row static (gamma and beta's length): the three-pass kernel
// over rows split per call. A dynamic row (gamma of `?`) is left for convert-versa-to-linalg.
// CHECK-LABEL: func.func @layer_norm_dynamic_rows
// CHECK: scf.forall (%{{.*}}) in (%{{.*}})
// CHECK: math.sqrt
// CHECK: versa.layer_norm
// CHECK-SAME: (tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
func.func @layer_norm_dynamic_rows(%x: tensor<?x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>,
                                   %y: tensor<2x?xf32>, %h: tensor<?xf32>) -> (tensor<?x64xf32>, tensor<2x?xf32>) {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %1 = "versa.layer_norm"(%y, %h, %h) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0, %1 : tensor<?x64xf32>, tensor<2x?xf32>
}
