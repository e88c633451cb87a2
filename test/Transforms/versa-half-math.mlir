// RUN: versa-opt %s --split-input-file --versa-fast-math | FileCheck %s --check-prefix=FAST
// RUN: versa-opt %s --split-input-file --versa-row-kernels="threads=1 target=x86-64-v4" --inline --symbol-dce | FileCheck %s --check-prefix=ROWS
// RUN: versa-opt %s --split-input-file --versa-row-kernels="threads=1 target=x86-64-v3" --inline --symbol-dce | FileCheck %s --check-prefix=V3-ROWS

// f16 and bf16 math computes in f32 (passes/compute_types.py): the whole vector extended once,
// the f32 polynomial, one rounding back; no math op (libm call) is left.
// FAST-LABEL: func.func @exp_f16
//       FAST:   %[[WIDE:.+]] = arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
//   FAST-NOT:   math.exp
//       FAST:   arith.cmpf olt, %[[WIDE]], {{.*}} : vector<16xf32>
//       FAST:   math.fma {{.*}} : vector<16xf32>
//       FAST:   arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
//       FAST:   %[[NARROW:.+]] = arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
//   FAST-NOT:   math.exp
//       FAST:   return %[[NARROW]]
func.func @exp_f16(%x: vector<16xf16>) -> vector<16xf16> {
  %0 = math.exp %x : vector<16xf16>
  return %0 : vector<16xf16>
}

// -----

// FAST-LABEL: func.func @erf_bf16
//       FAST:   arith.extf %{{.*}} : bf16 to f32
//   FAST-NOT:   math.erf
//       FAST:   math.fma {{.*}} : f32
//       FAST:   arith.truncf %{{.*}} : f32 to bf16
//       FAST:   return
func.func @erf_bf16(%x: bf16) -> bf16 {
  %0 = math.erf %x : bf16
  return %0 : bf16
}

// -----

// f64 stays (libm).
// FAST-LABEL: func.func @tanh_f64
//       FAST:   math.tanh %{{.*}} : vector<8xf64>
func.func @tanh_f64(%x: vector<8xf64>) -> vector<8xf64> {
  %0 = math.tanh %x : vector<8xf64>
  return %0 : vector<8xf64>
}

// -----

// An f16 softmax row kernel, software-pipelined (f16 rows of two or more a thread): f16 vectors
// read and extended, e = exp(x - max) kept in the f32 scratch rows, max and sum in f32, one
// rounding on the store.
// ROWS-LABEL: func.func @softmax_f16
//       ROWS:   tensor.empty() : tensor<64x1000xf16>
//       ROWS:   tensor.empty() : tensor<2x1000xf32>
//       ROWS:   vector.transfer_read {{.*}} : tensor<64x1000xf16>, vector<16xf16>
//       ROWS:   arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
//       ROWS:   math.exp {{.*}} : vector<16xf32>
//       ROWS:   vector.transfer_write {{.*}} : vector<16xf32>, tensor<2x1000xf32>
//       ROWS:   arith.truncf {{.*}} : vector<16xf32> to vector<16xf16>
//       ROWS:   vector.transfer_write {{.*}} : vector<16xf16>, tensor<64x1000xf16>
//       ROWS:   return
// AVX2: f16 vectors of 8 (one 128-bit load, one vcvtph2ps), four f32 accumulators a step.
// V3-ROWS-LABEL: func.func @softmax_f16
//       V3-ROWS:   tensor.empty() : tensor<64x1000xf16>
//       V3-ROWS:   tensor.empty() : tensor<2x1000xf32>
//       V3-ROWS:   scf.for {{.*}} to %c992 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
//       V3-ROWS:     vector.transfer_read {{.*}} : tensor<64x1000xf16>, vector<8xf16>
//       V3-ROWS:     arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
//       V3-ROWS:   math.exp {{.*}} : vector<8xf32>
//       V3-ROWS:   vector.transfer_write {{.*}} : vector<8xf32>, tensor<2x1000xf32>
//       V3-ROWS:   arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
//       V3-ROWS:   vector.transfer_write {{.*}} : vector<8xf16>, tensor<64x1000xf16>
//       V3-ROWS:   return
func.func @softmax_f16(%x: tensor<64x1000xf16>) -> tensor<64x1000xf16> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<64x1000xf16>) -> tensor<64x1000xf16>
  return %0 : tensor<64x1000xf16>
}

// -----

// One row (three passes, aligned): storing e in the f16 output would round it twice, so the
// third pass recomputes exp before the one rounding on the store; no f32 tensor.
// ROWS-LABEL: func.func @softmax_f16_row
//   ROWS-NOT:   tensor<{{[0-9x]*}}xf32>
//       ROWS:   vector.transfer_read {{.*}} : tensor<1x4100xf16>, vector<16xf16>
//       ROWS:   arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
//       ROWS:   arith.maximumf {{.*}} : vector<16xf32>
//       ROWS:   math.exp {{.*}} : vector<16xf32>
//       ROWS:   vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
//       ROWS:   math.exp {{.*}} : vector<16xf32>
//       ROWS:   arith.mulf {{.*}} : vector<16xf32>
//       ROWS:   arith.truncf {{.*}} : vector<16xf32> to vector<16xf16>
//       ROWS:   vector.transfer_write {{.*}} : vector<16xf16>, tensor<1x4100xf16>
//   ROWS-NOT:   tensor<{{[0-9x]*}}xf32>
//       ROWS:   return
// V3-ROWS-LABEL: func.func @softmax_f16_row
//   V3-ROWS-NOT:   tensor<{{[0-9x]*}}xf32>
//       V3-ROWS:   scf.for {{.*}} to %c4096 step %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
//       V3-ROWS:     vector.transfer_read {{.*}} : tensor<1x4100xf16>, vector<8xf16>
//       V3-ROWS:     arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
//       V3-ROWS:     arith.maximumf {{.*}} : vector<8xf32>
//       V3-ROWS:   math.exp {{.*}} : vector<8xf32>
//       V3-ROWS:   vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
//       V3-ROWS:   math.exp {{.*}} : vector<8xf32>
//       V3-ROWS:   arith.mulf {{.*}} : vector<8xf32>
//       V3-ROWS:   arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
//       V3-ROWS:   vector.transfer_write {{.*}} : vector<8xf16>, tensor<1x4100xf16>
//   V3-ROWS-NOT:   tensor<{{[0-9x]*}}xf32>
//       V3-ROWS:   return
func.func @softmax_f16_row(%x: tensor<4100xf16>) -> tensor<4100xf16> {
  %0 = "versa.softmax"(%x) {axis = -1 : i64} : (tensor<4100xf16>) -> tensor<4100xf16>
  return %0 : tensor<4100xf16>
}

// -----

// bf16 layer_norm: gamma and beta read as bf16 rows too; the mean and variance in f32.
// ROWS-LABEL: func.func @layer_norm_bf16
//       ROWS:   vector.transfer_read {{.*}} : tensor<8x40xbf16>, vector<16xbf16>
//       ROWS:   arith.extf {{.*}} : vector<16xbf16> to vector<16xf32>
//       ROWS:   math.fma {{.*}} : vector<16xf32>
//       ROWS:   math.sqrt {{.*}} : f32
//       ROWS:   vector.transfer_read {{.*}} : tensor<40xbf16>, vector<16xbf16>
//       ROWS:   arith.truncf {{.*}} : vector<16xf32> to vector<16xbf16>
//       ROWS:   vector.transfer_write {{.*}} : vector<16xbf16>, tensor<8x40xbf16>
// V3-ROWS-LABEL: func.func @layer_norm_bf16
//       V3-ROWS:   vector.transfer_read {{.*}} : tensor<8x40xbf16>, vector<8xbf16>
//       V3-ROWS:   arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
//       V3-ROWS:   math.fma {{.*}} : vector<8xf32>
//       V3-ROWS:   math.sqrt {{.*}} : f32
//       V3-ROWS:   vector.transfer_read {{.*}} : tensor<40xbf16>, vector<8xbf16>
//       V3-ROWS:   arith.truncf {{.*}} : vector<8xf32> to vector<8xbf16>
//       V3-ROWS:   vector.transfer_write {{.*}} : vector<8xbf16>, tensor<8x40xbf16>
func.func @layer_norm_bf16(%x: tensor<8x40xbf16>, %g: tensor<40xbf16>, %b: tensor<40xbf16>) -> tensor<8x40xbf16> {
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<8x40xbf16>, tensor<40xbf16>, tensor<40xbf16>) -> tensor<8x40xbf16>
  return %0 : tensor<8x40xbf16>
}
