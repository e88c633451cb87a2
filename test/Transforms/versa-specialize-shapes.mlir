// RUN: versa-opt %s --versa-specialize-shapes="sizes=batch:3,seq:7" | FileCheck %s
// RUN: not versa-opt %s --versa-specialize-shapes="sizes=batch:3,seq:700" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not versa-opt %s --versa-specialize-shapes="sizes=batch:3" 2>&1 | FileCheck %s --check-prefix=MISSING

// Every type takes the sizes: the arguments', each op's result by its rules (the reshape's `?`
// from its input's dims, the matmul's from both operands), the function's; the dims and their
// ranges go, so the function compiles as a static import of these sizes would.
// CHECK-LABEL: func.func @attention(%arg0: tensor<3x7x32xf32>) -> tensor<3x4x7x7xf32> {
//   CHECK-NOT:   versa.dim
//       CHECK:   "versa.reshape"(%arg0) : (tensor<3x7x32xf32>) -> tensor<3x7x4x8xf32>
//       CHECK:   "versa.transpose"({{.*}}) {{.*}} : (tensor<3x7x4x8xf32>) -> tensor<3x4x7x8xf32>
//       CHECK:   "versa.matmul"({{.*}}) : (tensor<3x4x7x8xf32>, tensor<3x4x8x7xf32>) -> tensor<3x4x7x7xf32>
//       CHECK:   "versa.softmax"({{.*}}) {axis = 3 : i64} : (tensor<3x4x7x7xf32>) -> tensor<3x4x7x7xf32>
//       CHECK:   return {{.*}} : tensor<3x4x7x7xf32>

// A size outside the function's range is refused, as a call with it would be.
// RANGE: error: sizes the function does not take: argument 0 dim 1 = 700 exceeds the maximum 512 of 'seq'
// MISSING: error: 'versa-specialize-shapes' dynamic dims without a size: 'seq' (argument 0 dim 1)
func.func @attention(%x: tensor<?x?x32xf32> {versa.dims = ["batch", "seq", 32]}) -> tensor<?x4x?x?xf32>
    attributes {versa.dim_ranges = {batch = array<i64: 1, 64>, seq = array<i64: 1, 512>}} {
  %0 = "versa.reshape"(%x) : (tensor<?x?x32xf32>) -> tensor<?x?x4x8xf32>
  %1 = "versa.transpose"(%0) {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %2 = "versa.transpose"(%1) {perm = array<i64: 0, 1, 3, 2>} : (tensor<?x4x?x8xf32>) -> tensor<?x4x8x?xf32>
  %3 = "versa.matmul"(%1, %2) : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %4 = "versa.softmax"(%3) {axis = 3 : i64} : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %4 : tensor<?x4x?x?xf32>
}
