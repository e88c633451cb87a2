// RUN: versa-opt --versa-pool-kernels="threads=2 target=x86-64-v4" --inline --symbol-dce --canonicalize %s | FileCheck %s
// RUN: versa-opt --versa-pool-kernels="threads=2 target=x86-64-v3" --inline --symbol-dce --canonicalize %s | FileCheck %s --check-prefix=V3
// RUN: versa-opt --versa-pool-kernels %s | FileCheck %s --check-prefix=CALL

// 3x3 stride 2, padding 1, 128 planes of 40x72 into 20x36, two threads. Row 0 is a border row
// (taps 1 and 2 only); rows 1..19 one loop. Along a row, tiles of 16: tile 0 meets the left
// padding (one clamped read per row, the padding lane -inf by shuffle), tile 16 lies inside
// (two groups of taps, 32 lanes each: taps 0 and 1 from group 0, tap 2 from group 1), and the
// tail of 4 is apart.
// CHECK-LABEL: func.func @max_3x3_s2_p1
// CHECK: %[[NEG:.+]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: %[[X:.+]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x64x40x72xf32> into tensor<128x40x72xf32>
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: scf.for
// Row 0, tile 0: rows 0 and 1, columns 0..31 (column -1 is padding: tap 0 of output 0 takes
// lane 0 of the -inf vector).
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %c0, %c0], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<32xf32>
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %c1, %c0], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<32xf32>
// CHECK-NEXT: arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : vector<32xf32>
// CHECK-NEXT: vector.shuffle %{{.*}}, %[[NEG]] [32, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29] : vector<32xf32>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<?x20x36xf32>
// Row 0, tile 16: groups at columns 31 and 33.
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %c0, %c31], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<32xf32>
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %c0, %c33], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<32xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31] : vector<32xf32>, vector<32xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %c16] {in_bounds = [true]} : vector<16xf32>, tensor<?x20x36xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %c32] {in_bounds = [true]} : vector<4xf32>, tensor<?x20x36xf32>
// The interior rows: three input rows per tile.
// CHECK: scf.for %{{.*}} = %c1 to %c20 step %c1
// CHECK-COUNT-3: vector.transfer_read %[[X]]{{.*}} vector<32xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK: tensor.expand_shape
// CHECK-NOT: versa.max_pool2d
// CALL-LABEL: func.func @max_3x3_s2_p1
// CALL: call @versa_pool_0(%{{.*}}) : (tensor<2x64x40x72xf32>) -> tensor<2x64x20x36xf32>
// AVX2: tiles of 8 outputs, each tap group 16 lanes (two loads). Row 0: tile 0 at the left
// padding, tiles 8, 16 and 24 inside (one loop), the tail of 4 apart; then the interior rows.
// V3-LABEL: func.func @max_3x3_s2_p1
// V3: %[[NEG:.+]] = arith.constant dense<0xFF800000> : vector<16xf32>
// V3: %[[X:.+]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<2x64x40x72xf32> into tensor<128x40x72xf32>
// V3: scf.forall (%{{.*}}) in (2)
// V3: scf.for
// V3: vector.transfer_read %[[X]][%{{.*}}, %c0, %c0], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<16xf32>
// V3: vector.transfer_read %[[X]][%{{.*}}, %c1, %c0], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<16xf32>
// V3-NEXT: arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : vector<16xf32>
// V3-NEXT: vector.shuffle %{{.*}}, %[[NEG]] [16, 1, 3, 5, 7, 9, 11, 13] : vector<16xf32>, vector<16xf32>
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %c0] {in_bounds = [true]} : vector<8xf32>, tensor<?x20x36xf32>
// V3: scf.for %[[T:.+]] = %c8 to %c32 step %c8
// V3: vector.transfer_read %[[X]][%{{.*}}, %c0, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<128x40x72xf32>, vector<16xf32>
// V3: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// V3: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15] : vector<16xf32>, vector<16xf32>
// V3: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %[[T]]] {in_bounds = [true]} : vector<8xf32>, tensor<?x20x36xf32>
// V3: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %c0, %c32] {in_bounds = [true]} : vector<4xf32>, tensor<?x20x36xf32>
// V3: scf.for %{{.*}} = %c1 to %c20 step %c1
// V3-COUNT-3: vector.transfer_read %[[X]]{{.*}} vector<16xf32>
// V3: tensor.parallel_insert_slice
// V3: tensor.expand_shape
// V3-NOT: versa.max_pool2d
func.func @max_3x3_s2_p1(%x: tensor<2x64x40x72xf32>) -> tensor<2x64x20x36xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x64x40x72xf32>) -> tensor<2x64x20x36xf32>
  return %0 : tensor<2x64x20x36xf32>
}

// An average over 2x2 windows, small enough for one thread: a loop over planes, rows in one
// loop, and a tile loop along each row; the sum divided by the 4 taps.
// CHECK-LABEL: func.func @avg_2x2
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK: vector.shuffle
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write
// CALL-LABEL: func.func @avg_2x2
// CALL: call @versa_pool_1
// V3-LABEL: func.func @avg_2x2
// V3-NOT: scf.forall
// V3: scf.for %{{.*}} = %c0 to %c6 step %c1
// V3: scf.for %{{.*}} = %c0 to %c8 step %c1
// V3: scf.for %{{.*}} = %c0 to %c32 step %c8
// V3: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// V3: vector.shuffle
// V3: arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
// V3: vector.transfer_write
func.func @avg_2x2(%x: tensor<2x3x16x64xf32>) -> tensor<2x3x8x32xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x16x64xf32>) -> tensor<2x3x8x32xf32>
  return %0 : tensor<2x3x8x32xf32>
}

// NHWC and f16 keep the linalg lowering.
// CHECK-LABEL: func.func @left_alone
// CHECK: versa.max_pool2d
// CHECK: versa.avg_pool2d
// V3-LABEL: func.func @left_alone
// V3: versa.max_pool2d
// V3: versa.avg_pool2d
func.func @left_alone(%a: tensor<1x8x8x4xf32>, %b: tensor<1x4x8x8xf16>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf16>) {
  %0 = "versa.max_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = "versa.avg_pool2d"(%b) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf16>) -> tensor<1x4x4x4xf16>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf16>
}
