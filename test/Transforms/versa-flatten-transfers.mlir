// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-flatten-transfers{target=aarch64-neon})' | FileCheck %s
// (aarch64-neon: 128-bit vectors on any machine: rows of 4 f32 and more are left alone.)

// A window tile: rows 112 apart, each a contiguous run of 55 x 2: one read of 110 per row.
// CHECK-LABEL: func.func @window
//       CHECK:   %[[F:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1, 2]] : memref<2x55x2xf32, strided<[112, 2, 1], offset: ?>> into memref<2x110xf32, strided<[112, 1], offset: ?>>
//       CHECK:   %[[R:.+]] = vector.transfer_read %[[F]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<2x110xf32, strided<[112, 1], offset: ?>>, vector<2x110xf32>
//       CHECK:   %[[V:.+]] = vector.shape_cast %[[R]] : vector<2x110xf32> to vector<2x55x2xf32>
//       CHECK:   return %[[V]]
func.func @window(%m: memref<2x55x2xf32, strided<[112, 2, 1], offset: ?>>) -> vector<2x55x2xf32> {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0, %c0], %p {in_bounds = [true, true, true]} : memref<2x55x2xf32, strided<[112, 2, 1], offset: ?>>, vector<2x55x2xf32>
  return %v : vector<2x55x2xf32>
}

// -----

// Not flattened: a gap inside the trailing dims, a partial dim, a nonzero index, a 1-D read.
// CHECK-LABEL: func.func @kept
//   CHECK-NOT:   memref.collapse_shape
//   CHECK-NOT:   vector.shape_cast
//       CHECK:   return
func.func @kept(%gap: memref<4x3xf32, strided<[4, 1]>>, %full: memref<4x8xf32>, %nz: memref<2x2xf32, strided<[2, 1], offset: ?>>, %i: index)
    -> (vector<4x3xf32>, vector<4x2xf32>, vector<2x2xf32>, vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %a = vector.transfer_read %gap[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x3xf32, strided<[4, 1]>>, vector<4x3xf32>
  %b = vector.transfer_read %full[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x2xf32>
  %c = vector.transfer_read %nz[%c0, %i], %p {in_bounds = [true, true]} : memref<2x2xf32, strided<[2, 1], offset: ?>>, vector<2x2xf32>
  %d = vector.transfer_read %full[%i, %c0], %p {in_bounds = [true]} : memref<4x8xf32>, vector<8xf32>
  return %a, %b, %c, %d : vector<4x3xf32>, vector<4x2xf32>, vector<2x2xf32>, vector<8xf32>
}

// -----

// The whole memref: every dim folds into one. Rows of a full register are kept.
// CHECK-LABEL: func.func @whole
//       CHECK:   memref.collapse_shape %{{.+}} {{\[}}[0, 1]] : memref<4x2xf32> into memref<8xf32>
//       CHECK:   vector.transfer_read {{.+}} : memref<8xf32>, vector<8xf32>
//       CHECK:   vector.shape_cast {{.+}} : vector<8xf32> to vector<4x2xf32>
//   CHECK-NOT:   memref.collapse_shape
//       CHECK:   return
func.func @whole(%m: memref<4x2xf32>, %rows: memref<4x4xf32>) -> (vector<4x2xf32>, vector<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x2xf32>, vector<4x2xf32>
  %w = vector.transfer_read %rows[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x4xf32>, vector<4x4xf32>
  return %v, %w : vector<4x2xf32>, vector<4x4xf32>
}
