// versa.scatter through the pipelines: bufferization updates the carried buffer in place
// (one copy of the input into the result, nothing allocated or copied per row), the row's
// combine is vector code, and the GPU pipeline runs the serial loop in a one-thread kernel.
// RUN: versa-opt %s --convert-versa-to-linalg --canonicalize --cse --versa-vectorize=width=8 --canonicalize --versa-unshare-inits --versa-readonly-arguments --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' --cse --canonicalize --buffer-results-to-out-params='hoist-static-allocs modify-public-functions' --versa-lower-memref-copy | FileCheck %s --check-prefix=BUF
// RUN: versa-opt %s --lower-to-llvm=target=x86-64-v3 | FileCheck %s --check-prefix=LLVM
// RUN: versa-opt %s --lower-to-nvvm | FileCheck %s --check-prefix=GPU

// BUF-LABEL: func.func @embedding_grad
//  BUF-SAME:   (%[[W:.+]]: memref<300x64xf32>, %[[I:.+]]: memref<32x1xi64>, %[[G:.+]]: memref<32x64xf32>, %[[OUT:.+]]: memref<300x64xf32>)
//   BUF-NOT:   memref.alloc
//       BUF:   memref.copy %[[W]], %[[OUT]] : memref<300x64xf32> to memref<300x64xf32>
//       BUF:   scf.for
//       BUF:     memref.load %[[I]]
//       BUF:     scf.if
//       BUF:       %[[ROW:.+]] = memref.subview %[[OUT]][%{{.+}}, 0] [1, 64] [1, 1]
//       BUF:       scf.for
//       BUF:         vector.transfer_read
//       BUF:         arith.addf %{{.+}}, %{{.+}} : vector<8xf32>
//       BUF:         vector.transfer_write
//   BUF-NOT:   memref.alloc
//   BUF-NOT:   memref.copy
//       BUF:   return
// LLVM-LABEL: llvm.func @embedding_grad
//   LLVM-NOT:   memrefCopy
//       LLVM:   llvm.fadd %{{.+}}, %{{.+}} : vector<{{[0-9]+}}xf32>
// GPU-LABEL: func.func @embedding_grad
//       GPU:   gpu.launch_func @{{.+}} blocks in (%[[ONE:.+]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
//       GPU:   gpu.module
//       GPU:     llvm.fadd
func.func @embedding_grad(%w: tensor<300x64xf32>, %i: tensor<32x1xi64>, %g: tensor<32x64xf32>) -> tensor<300x64xf32> {
  %0 = "versa.scatter"(%w, %i, %g) {reduction = "add"} : (tensor<300x64xf32>, tensor<32x1xi64>, tensor<32x64xf32>) -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}
