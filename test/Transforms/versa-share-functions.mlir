// RUN: versa-opt %s --split-input-file --versa-share-functions | FileCheck %s

// Two private functions that differ only in their name become one; its calls are kept
// (no_inline, which the pipeline's `inline` respects) and LLVM neither inlines nor exports it.
// CHECK-LABEL: func.func private @row_0
//  CHECK-SAME:   attributes {llvm.linkage = #llvm.linkage<internal>, llvm.no_inline}
//   CHECK-NOT: func.func private @row_1
//       CHECK: func.func @layers
//       CHECK:   %[[A:.+]] = call @row_0(%arg0) {no_inline}
//       CHECK:   call @row_0(%[[A]]) {no_inline}
func.func private @row_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @row_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @layers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @row_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @row_1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Kernels calling identical helpers are identical once the helpers are one (a second round);
// the helper is then called from one place only and stays inlinable.
// CHECK-LABEL: func.func private @helper_0(
//   CHECK-NOT:   no_inline
//       CHECK: func.func private @kernel_0
//  CHECK-SAME:   llvm.no_inline
//       CHECK:   call @helper_0(%arg0) :
//   CHECK-NOT: func.func private
//       CHECK: func.func @layers
//       CHECK:   call @kernel_0(%arg0) {no_inline}
//       CHECK:   call @kernel_0(%{{.+}}) {no_inline}
func.func private @helper_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kernel_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @helper_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kernel_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @helper_1(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @layers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @kernel_1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Functions that differ (an attribute, a constant), public ones and a private function called
// twice but never merged are left as they are: `inline` pastes them back as before.
// CHECK-LABEL: func.func private @eps_0(
//   CHECK-NOT:   llvm.no_inline
//       CHECK: func.func private @eps_1(
//       CHECK: func.func @public_0(
//       CHECK: func.func @public_1(
//       CHECK: func.func private @twice(
//   CHECK-NOT:   no_inline
func.func private @eps_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = arith.addf %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @eps_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 5.0]> : tensor<4xf32>
  %0 = arith.addf %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @public_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @public_1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.subf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @eps_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @eps_1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = call @twice(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = call @twice(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Identical helpers that a kernel calls per vector, inside its loops (a row kernel's fused
// producer and consumer can be the same code): one function, still inlined.
// CHECK-LABEL: func.func private @inner_0(
//   CHECK-NOT:   llvm.no_inline
//   CHECK-NOT: func.func private @inner_1
//       CHECK: scf.execute_region
//       CHECK:   call @inner_0(%arg0) :
//       CHECK:   call @inner_0(%{{.+}}) :
func.func private @inner_0(%x: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.mulf %x, %x : vector<4xf32>
  return %0 : vector<4xf32>
}
func.func private @inner_1(%x: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.mulf %x, %x : vector<4xf32>
  return %0 : vector<4xf32>
}
func.func @row(%x: vector<4xf32>) -> vector<4xf32> {
  %r = scf.execute_region -> vector<4xf32> {
    %0 = func.call @inner_0(%x) : (vector<4xf32>) -> vector<4xf32>
    %1 = func.call @inner_1(%0) : (vector<4xf32>) -> vector<4xf32>
    scf.yield %1 : vector<4xf32>
  }
  return %r : vector<4xf32>
}
