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

// sin: |x| reduced by k pi/2 in f64: k from the low bits of |x| 2/pi + 1.5 2^52 (one fma), pi/2
// split in two doubles (two fma); r back in f32 for both polynomials; the quadrant's bit 0
// picks one, its bit 1 and the sign of x flip the sign bit. No math.sin (no sinf calls) left.
// CHECK-LABEL: func.func @sin
//  CHECK-SAME:   (%[[X:.+]]: vector<16xf32>)
//   CHECK-NOT:   math.sin
//       CHECK:   %[[A:.+]] = math.absf %[[X]]
//       CHECK:   %[[W:.+]] = arith.extf %[[A]] : vector<16xf32> to vector<16xf64>
//   CHECK-DAG:   %[[TWO_OVER_PI:.+]] = arith.constant dense<0.63661977236758138> : vector<16xf64>
//   CHECK-DAG:   %[[ROUND:.+]] = arith.constant dense<0x4338000000000000> : vector<16xf64>
//       CHECK:   %[[T:.+]] = math.fma %[[W]], %[[TWO_OVER_PI]], %[[ROUND]] : vector<16xf64>
//       CHECK:   %[[K:.+]] = arith.subf %[[T]]
//       CHECK:   %[[HI:.+]] = arith.constant dense<-1.5707963267948966> : vector<16xf64>
//       CHECK:   %[[R1:.+]] = math.fma %[[K]], %[[HI]], %[[W]] : vector<16xf64>
//       CHECK:   %[[LO:.+]] = arith.constant dense<-6.123233995736766E-17> : vector<16xf64>
//       CHECK:   %[[R:.+]] = math.fma %[[K]], %[[LO]], %[[R1]] : vector<16xf64>
//       CHECK:   %[[BITS:.+]] = arith.bitcast %[[T]] : vector<16xf64> to vector<16xi64>
//       CHECK:   arith.trunci %[[BITS]] : vector<16xi64> to vector<16xi32>
//       CHECK:   arith.truncf %[[R]] : vector<16xf64> to vector<16xf32>
//       CHECK:   %[[ODD:.+]] = arith.cmpi ne
//       CHECK:   %[[Y:.+]] = arith.select %[[ODD]], %{{.+}}, %{{.+}} : vector<16xi1>, vector<16xf32>
//       CHECK:   %[[SIGN:.+]] = arith.xori
//       CHECK:   %[[YBITS:.+]] = arith.bitcast %[[Y]] : vector<16xf32> to vector<16xi32>
//       CHECK:   %[[FLIPPED:.+]] = arith.xori %[[YBITS]], %[[SIGN]]
//       CHECK:   %[[RESULT:.+]] = arith.bitcast %[[FLIPPED]] : vector<16xi32> to vector<16xf32>
//   CHECK-NOT:   math.sin
//       CHECK:   return %[[RESULT]]
func.func @sin(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.sin %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// cos: sin's reduction and table at quadrant q + 1 (scalars too).
// CHECK-LABEL: func.func @cos
//   CHECK-NOT:   math.cos
//       CHECK:   math.fma {{.*}} : f64
//       CHECK:   arith.truncf {{.*}} : f64 to f32
//       CHECK:   %[[ONE:.+]] = arith.constant 1 : i32
//       CHECK:   arith.addi %{{.+}}, %[[ONE]] : i32
//   CHECK-NOT:   math.cos
//       CHECK:   return
func.func @cos(%x: f32) -> f32 {
  %0 = math.cos %x : f32
  return %0 : f32
}

// -----

// tan: sin's reduction; s / c in even quadrants, c / s in odd ones (one divide), then the sign.
// CHECK-LABEL: func.func @tan
//   CHECK-NOT:   math.tan
//       CHECK:   math.fma {{.*}} : vector<8xf64>
//       CHECK:   %[[ODD:.+]] = arith.cmpi ne
//       CHECK:   %[[N:.+]] = arith.select %[[ODD]], %[[C:[a-z0-9_]+]], %[[S:[a-z0-9_]+]] : vector<8xi1>, vector<8xf32>
//       CHECK:   %[[D:.+]] = arith.select %[[ODD]], %[[S]], %[[C]] : vector<8xi1>, vector<8xf32>
//       CHECK:   arith.divf %[[N]], %[[D]] : vector<8xf32>
//   CHECK-NOT:   math.tan
//       CHECK:   return
func.func @tan(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.tan %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// atan: Cephes' atanf: |x| above tan(3pi/8) as pi/2 - atan(1/|x|), above tan(pi/8) as
// pi/4 + atan((|x| - 1) / (|x| + 1)), one divide; pi/2 and pi/4 added as f32 hi + lo; x's sign.
// CHECK-LABEL: func.func @atan
//  CHECK-SAME:   (%[[X:.+]]: f32)
//   CHECK-NOT:   math.atan
//       CHECK:   %[[A:.+]] = math.absf %[[X]] : f32
//       CHECK:   %[[T3:.+]] = arith.constant 2.41421366 : f32
//       CHECK:   %[[BIG:.+]] = arith.cmpf ogt, %[[A]], %[[T3]] : f32
//       CHECK:   %[[T1:.+]] = arith.constant 0.414213568 : f32
//       CHECK:   %[[MID:.+]] = arith.cmpf ogt, %[[A]], %[[T1]] : f32
//       CHECK:   arith.divf
//       CHECK:   %[[PIO2:.+]] = arith.constant 1.57079637 : f32
//       CHECK:   %[[QUARTER:.+]] = arith.select %[[MID]], %{{.+}}, %{{.+}} : f32
//       CHECK:   %[[HI:.+]] = arith.select %[[BIG]], %[[PIO2]], %[[QUARTER]] : f32
//       CHECK:   %[[PIO2_LO:.+]] = arith.constant -4.37113883E-8 : f32
//       CHECK:   %[[LO:.+]] = arith.select %[[BIG]], %[[PIO2_LO]], %{{.+}} : f32
//       CHECK:   %[[Y:.+]] = arith.addf %{{.+}}, %[[LO]] : f32
//       CHECK:   %[[R:.+]] = arith.addf %[[HI]], %[[Y]] : f32
//       CHECK:   %[[RESULT:.+]] = math.copysign %[[R]], %[[X]] : f32
//   CHECK-NOT:   math.atan
//       CHECK:   return %[[RESULT]]
func.func @atan(%x: f32) -> f32 {
  %0 = math.atan %x : f32
  return %0 : f32
}

// -----

// f64 (and any type but f32, f16 and bf16) keeps its math ops: the approximations are f32.
// CHECK-LABEL: func.func @negative_f64
//       CHECK:   math.exp {{.*}} : vector<8xf64>
//       CHECK:   math.log {{.*}} : f64
//       CHECK:   math.sin {{.*}} : vector<8xf64>
//   CHECK-NOT:   math.fma
func.func @negative_f64(%x: vector<8xf64>, %s: f64) -> (vector<8xf64>, f64, vector<8xf64>) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.log %s : f64
  %2 = math.sin %x : vector<8xf64>
  return %0, %1, %2 : vector<8xf64>, f64, vector<8xf64>
}
