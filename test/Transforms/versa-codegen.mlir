// RUN: versa-opt %s --split-input-file --versa-codegen='threads=2' | FileCheck %s
// RUN: versa-opt %s --split-input-file --versa-codegen='threads=1' | FileCheck %s --check-prefix=SERIAL

// matmul: rows split across two threads, cache blocks, a register tile whose accumulators
// live in vector registers across the k loop (hoisted), outer products as vector.fma.
// CHECK-LABEL: func.func @matmul
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     scf.for
//       CHECK:       %[[ACC:.+]] = vector.transfer_read
//       CHECK:       scf.for {{.*}} iter_args(%{{.+}} = %[[ACC]]) -> (vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
//       CHECK:         vector.fma {{.*}} : vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   linalg.matmul
// SERIAL-LABEL: func.func @matmul
//   SERIAL-NOT:   scf.forall
//       SERIAL:   vector.fma
func.func @matmul(%a: tensor<256x128xf32>, %b: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%z : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Sizes that do not divide the register tile: the full tiles are vector code without masks,
// the remainders masked; nothing stays a linalg.matmul.
// CHECK-LABEL: func.func @ragged
//       CHECK:   vector.fma
//       CHECK:   vector.create_mask
//   CHECK-NOT:   linalg.matmul
func.func @ragged(%a: tensor<37x67xf32>, %b: tensor<67x131xf32>) -> tensor<37x131xf32> {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x131xf32>
  %z = linalg.fill ins(%c : f32) outs(%e : tensor<37x131xf32>) -> tensor<37x131xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x67xf32>, tensor<67x131xf32>) outs(%z : tensor<37x131xf32>) -> tensor<37x131xf32>
  return %0 : tensor<37x131xf32>
}

// -----

// batch matmul: threads over the batch.
// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   scf.forall (%{{.+}}) in (2)
//       CHECK:     vector.fma
//   CHECK-NOT:   linalg.batch_matmul
func.func @batch_matmul(%a: tensor<4x64x32xf32>, %b: tensor<4x32x64xf32>) -> tensor<4x64x64xf32> {
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
func.func @negative_elementwise(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.exp ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
