// RUN: versa-opt %s --split-input-file --lower-to-llvm=target=x86-64-v3 | FileCheck %s
// RUN: versa-opt %s --split-input-file --pass-pipeline='builtin.module(versa-fuse,func.func(canonicalize,cse),lower-to-llvm{opt-level=3 threads=1 target=x86-64-v3})' | FileCheck %s
// RUN: versa-opt %s --split-input-file --lower-to-llvm='opt-level=0 target=x86-64-v3' | FileCheck %s --check-prefix=O0
// RUN: versa-opt %s --split-input-file --lower-to-llvm='opt-level=3 threads=2 target=x86-64-v3' | FileCheck %s --check-prefix=O3

// Results become out-params: the entry takes input and output memref descriptors, returns nothing.
// CHECK-LABEL: llvm.func @bias_relu
//  CHECK-SAME:   !llvm.ptr
//   CHECK-NOT:   -> !llvm.struct
//       CHECK:   llvm.fadd {{.*}}vector<{{[0-9]+}}xf32>
//       CHECK:   llvm.intr.maximum{{.*}}vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   versa.
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   memref.
//   CHECK-NOT:   scf.
//   CHECK-NOT:   vector.
//   CHECK-NOT:   builtin.unrealized_conversion_cast
func.func @bias_relu(%a: tensor<4x64xf32>, %b: tensor<64xf32>) -> tensor<4x64xf32> {
  %0 = "versa.add"(%a, %b) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %1 = "versa.relu"(%0) : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// A matmul becomes a vector micro-kernel (O2 and up), scalar multiply-adds at O0.
// CHECK-LABEL: llvm.func @matmul
//       CHECK:   llvm.intr.{{fma|fmuladd}}{{.*}}vector<{{[0-9]+}}xf32>
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   memref.
//      O0-LABEL: llvm.func @matmul
//        O0-NOT:   vector<
//            O0:   llvm.fmul
//            O0:   llvm.fadd
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// At O3 with two threads, the rows of a large enough matmul (one where the second thread saves
// more than a fork and join costs) are split across an OpenMP team.
// (OpenMP ops stay in the llvm dialect; LLVM IR translation makes them __kmpc_* calls.)
// The loops around the vector micro-kernel are LLVM's to keep, not to unroll.
//            O3: #[[NO_UNROLL:.+]] = #llvm.loop_annotation<unroll = #{{.+}}>
//      O3-LABEL: llvm.func @matmul_threads
//            O3:   omp.parallel num_threads
//            O3:     omp.wsloop
//            O3:       llvm.intr.{{fma|fmuladd}}{{.*}}vector<{{[0-9]+}}xf32>
//            O3:       llvm.br ^bb{{[0-9]+}}(%{{.+}} : i64) {loop_annotation = #[[NO_UNROLL]]}
func.func @matmul_threads(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Linalg on tensors is accepted as input too.
// CHECK-LABEL: llvm.func @linalg_input
//   CHECK-NOT:   linalg.
func.func @linalg_input(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
