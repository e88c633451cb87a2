// Programs whose bufferization needs copies (views returned as results, padded convolutions
// in a row, out-of-place inserts into arguments): the buffers and copies after bufferization
// are pinned, and the lowered module calls no runtime-library copy (`memrefCopy`).
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --canonicalize --cse --versa-unshare-inits --versa-readonly-arguments --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' --cse --canonicalize --buffer-results-to-out-params='hoist-static-allocs modify-public-functions' --versa-lower-memref-copy | FileCheck %s --check-prefix=BUF
// RUN: versa-opt %s --split-input-file --lower-to-llvm=target=x86-64-v3 | FileCheck %s --check-prefix=LLVM
// RUN: versa-opt %s --split-input-file --versa-fuse --lower-to-llvm=target=x86-64-v3 | FileCheck %s --check-prefix=LLVM

// The concat is built once, in place; its reshape is copied into the result (a memcpy).
// BUF-LABEL: func.func @concat_reshaped_and_reused
//  BUF-COUNT-1:   memref.alloc()
//    BUF-NOT:     memref.alloc()
//        BUF:     linalg.copy {{.*}}outs(%{{.+}} : memref<6x3xf32, strided<[5, 1]>>)
//        BUF:     linalg.copy {{.*}}outs(%{{.+}} : memref<6x2xf32, strided<[5, 1], offset: 3>>)
//        BUF:     memref.copy %{{.+}}, %{{.+}} : memref<15x2xf32> to memref<15x2xf32>
//    BUF-NOT:     memref.copy
// LLVM-LABEL: llvm.func @concat_reshaped_and_reused
//   LLVM-NOT:   memrefCopy
func.func @concat_reshaped_and_reused(%a: tensor<6x3xf32>, %b: tensor<6x2xf32>) -> (tensor<15x2xf32>, tensor<6x5xf32>) {
  %0 = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<6x3xf32>, tensor<6x2xf32>) -> tensor<6x5xf32>
  %1 = "versa.reshape"(%0) : (tensor<6x5xf32>) -> tensor<15x2xf32>
  %2 = "versa.abs"(%0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
  return %1, %2 : tensor<15x2xf32>, tensor<6x5xf32>
}

// -----

// Two padded convolutions: one padded buffer and one accumulator each, the relu result, and
// no copy of a whole buffer (only the interiors are written).
// BUF-LABEL: func.func @two_padded_convs
//  BUF-COUNT-4:   memref.alloc()
//    BUF-NOT:     memref.alloc()
//    BUF-NOT:     memref.copy
//        BUF:     return
// LLVM-LABEL: llvm.func @two_padded_convs
//   LLVM-NOT:   memrefCopy
func.func @two_padded_convs(%x: tensor<1x8x8x8xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %0 = "versa.conv2d"(%x, %w1) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = "versa.relu"(%0) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = "versa.conv2d"(%1, %w2) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// Inserts into an argument: the argument is copied into each result (it is the caller's,
// never written), then the slice is written with loops, not a runtime call.
// BUF-LABEL: func.func @insert_into_argument
//   BUF-SAME:   (%[[A:.+]]: memref<2x3xf32>, %[[B:.+]]: memref<6x5xf32>, %[[R0:.+]]: memref<6x5xf32>, %[[R1:.+]]: memref<6x5xf32>)
//    BUF-NOT:     memref.alloc()
//        BUF:     memref.copy %[[B]], %[[R0]]
//        BUF:     linalg.copy {{.*}}ins(%[[A]] : memref<2x3xf32>)
//        BUF:     memref.copy %[[B]], %[[R1]]
//        BUF:     linalg.copy {{.*}}ins(%[[A]] : memref<2x3xf32>)
// LLVM-LABEL: llvm.func @insert_into_argument
//   LLVM-NOT:   memrefCopy
func.func @insert_into_argument(%a: tensor<2x3xf32>, %b: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>) {
  %0 = tensor.insert_slice %a into %b[1, 1] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x5xf32>
  %1 = tensor.insert_slice %a into %b[3, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x5xf32>
  return %0, %1 : tensor<6x5xf32>, tensor<6x5xf32>
}
