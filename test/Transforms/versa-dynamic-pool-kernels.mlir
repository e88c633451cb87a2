// RUN: versa-opt --versa-dynamic-pool-kernels="threads=2 target=x86-64-v3" --inline --symbol-dce --canonicalize %s | FileCheck %s
// RUN: versa-opt --versa-dynamic-pool-kernels="target=x86-64-v3" %s | FileCheck %s --check-prefix=CALL

// A 3x3 stride-2 max pool with padding 1 over a dynamic H and W (NCHW, x86-64-v3: 8 lanes).
// Sizes come from the input; the planes split across two threads where the call is large
// enough; output rows [lo, hi) read their three input rows directly, the border rows read
// them clamped into the image and take -inf for a row outside it.
// CHECK-LABEL: func.func @max_nchw
// CHECK: %[[X:.+]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<1x4x?x?xf32> into tensor<4x?x?xf32>
// CHECK: scf.if %{{.*}} -> (tensor<4x?x?xf32>)
// CHECK: scf.forall (%{{.*}}) in (2)
// A border row: clamped reads, the identity where the row lies outside the image.
// CHECK: arith.cmpi ult
// CHECK: arith.minsi
// CHECK: arith.maxsi
// The left tile, in bounds where the image is as wide as its reads (16 lanes from column 0;
// column -1 is lane 16, the -inf vector's), else masked.
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c0], %{{.*}} {in_bounds = [true]} : tensor<4x?x?xf32>, vector<16xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [16, 1, 3, 5, 7, 9, 11, 13] : vector<16xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %c0] {in_bounds = [true]} : vector<8xf32>, tensor<?x?x?xf32>
// CHECK: } else {
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c0], %{{.*}} : tensor<4x?x?xf32>, vector<16xf32>
// Inside tiles from column 8: two groups of 16 lanes per row, unmasked.
// CHECK: scf.for %[[OW:.+]] = %c8 to %{{.*}} step %c8
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<4x?x?xf32>, vector<16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[OW]]] {in_bounds = [true]} : vector<8xf32>
// Right tiles: reads masked at W (padded with -inf), writes at OW; then a half tile.
// CHECK: scf.for
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : tensor<4x?x?xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : vector<8xf32>, tensor<?x?x?xf32>
// CHECK: scf.if
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : tensor<4x?x?xf32>, vector<8xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : vector<4xf32>, tensor<?x?x?xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, %{{.*}}, %{{.*}}] : tensor<4x?x?xf32> into tensor<1x4x?x?xf32>
// CHECK-NOT: versa.max_pool2d
func.func @max_nchw(%x: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// NHWC average with a dynamic batch too: rows of N*OH (a chunk per thread), each an interior
// or a border row; per output pixel its nine taps as vectors of channels (24 = 3 x 8), an
// interior pixel divided by 9, a border one by its taps inside the image (a count per call).
// CHECK-LABEL: func.func @avg_nhwc
// CHECK-DAG: %[[NINE:.+]] = arith.constant dense<9.000000e+00> : vector<8xf32>
// CHECK: scf.forall
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK: scf.if %{{.*}} -> (tensor<?x?x24xf32>)
// CHECK-COUNT-9: vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %c0], %{{.*}} {in_bounds = [true]} : tensor<?x?x?x24xf32>, vector<8xf32>
// CHECK: arith.divf %{{.*}}, %[[NINE]] : vector<8xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %c8] {in_bounds = [true]} : vector<8xf32>, tensor<?x?x24xf32>
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: tensor.expand_shape %{{.*}} output_shape [%{{.*}}, %{{.*}}, %{{.*}}, 24] : tensor<?x?x24xf32> into tensor<?x?x?x24xf32>
func.func @avg_nhwc(%x: tensor<?x?x?x24xf32>) -> tensor<?x?x?x24xf32> {
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<?x?x?x24xf32>) -> tensor<?x?x?x24xf32>
  return %0 : tensor<?x?x?x24xf32>
}

// The pools become calls of the kernels (inlined by the pipeline).
// CALL-LABEL: func.func @max_nchw
// CALL: call @versa_dynamic_pool_0(%{{.*}}) : (tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>

// Left to the linalg lowering: a static pool (versa-pool-kernels'), dynamic channels, f16.
// CALL-LABEL: func.func @kept
// CALL-NOT: call @versa_dynamic_pool
// CALL-COUNT-3: versa.max_pool2d
func.func @kept(%a: tensor<1x4x8x8xf32>, %b: tensor<1x?x?x?xf32>, %c: tensor<1x4x?x?xf16>) -> (tensor<1x4x4x4xf32>, tensor<1x?x?x?xf32>, tensor<1x4x?x?xf16>) {
  %0 = "versa.max_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %1 = "versa.max_pool2d"(%b) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x?x?x?xf32>) -> tensor<1x?x?x?xf32>
  %2 = "versa.max_pool2d"(%c) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x4x?x?xf16>) -> tensor<1x4x?x?xf16>
  return %0, %1, %2 : tensor<1x4x4x4xf32>, tensor<1x?x?x?xf32>, tensor<1x4x?x?xf16>
}
