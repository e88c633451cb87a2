// RUN: versa-opt %s --split-input-file --versa-fast-math | FileCheck %s

// exp: range reduction and a polynomial in fma, 2^n from exponent bits; no math.exp left.
// CHECK-LABEL: func.func @exp
//   CHECK-NOT:   math.exp
//       CHECK:   math.fma {{.*}} : vector<16xf32>
//       CHECK:   arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
//   CHECK-NOT:   math.exp
//       CHECK:   return
func.func @exp(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log: exponent/mantissa split from the bits, selects for 0, negative, inf and NaN.
// CHECK-LABEL: func.func @log
//   CHECK-NOT:   math.log
//       CHECK:   arith.bitcast {{.*}} : vector<16xf32> to vector<16xi32>
//       CHECK:   math.fma {{.*}} : vector<16xf32>
//       CHECK:   arith.select
//   CHECK-NOT:   math.log
//       CHECK:   return
func.func @log(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.log %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// tanh: odd polynomial for small |x|, exp(-2|x|) for the rest, one select between them.
// CHECK-LABEL: func.func @tanh
//   CHECK-NOT:   math.tanh
//   CHECK-NOT:   math.exp
//       CHECK:   math.fma {{.*}} : vector<16xf32>
//       CHECK:   arith.select
//       CHECK:   math.copysign
//   CHECK-NOT:   math.tanh
//   CHECK-NOT:   math.exp
//       CHECK:   return
func.func @tanh(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.tanh %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// erf: any rank, and scalars too.
// CHECK-LABEL: func.func @erf
//   CHECK-NOT:   math.erf
//   CHECK-NOT:   math.exp
//       CHECK:   math.fma {{.*}} : vector<2x16xf32>
//       CHECK:   math.fma {{.*}} : f32
//   CHECK-NOT:   math.erf
//   CHECK-NOT:   math.exp
//       CHECK:   return
func.func @erf(%x: vector<2x16xf32>, %s: f32) -> (vector<2x16xf32>, f32) {
  %0 = math.erf %x : vector<2x16xf32>
  %1 = math.erf %s : f32
  return %0, %1 : vector<2x16xf32>, f32
}

// -----

// f64 (and any type but f32, f16 and bf16) keeps its math ops: the approximations are f32.
// CHECK-LABEL: func.func @negative_f64
//       CHECK:   math.exp {{.*}} : vector<8xf64>
//       CHECK:   math.log {{.*}} : f64
//   CHECK-NOT:   math.fma
func.func @negative_f64(%x: vector<8xf64>, %s: f64) -> (vector<8xf64>, f64) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.log %s : f64
  return %0, %1 : vector<8xf64>, f64
}
