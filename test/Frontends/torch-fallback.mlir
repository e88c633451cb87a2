// RUN: versa-import %s | FileCheck %s
// RUN: versa-import %s --coverage | FileCheck %s --check-prefix=COVERAGE
// Ops without a versa rule (asinh) or that a rule refuses (dilated max pooling) are lowered by
// torch-mlir's own convert-torch-to-linalg inside the versa function: versa and linalg mix,
// the torch_c casts cancel, and no torch op is left.

// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = "versa.relu"(%arg0)
// CHECK: linalg.generic
// CHECK: math.asinh
// CHECK: linalg.pooling_nchw_max
// CHECK: "versa.exp"
// CHECK-NOT: torch
// COVERAGE-DAG: torch.aten.relu {{.*}} versa
// COVERAGE-DAG: torch.aten.asinh {{.*}} linalg fallback
// COVERAGE-DAG: torch.aten.max_pool2d {{.*}} linalg fallback
// COVERAGE: 2 of 4 ops convert to versa
func.func @main(%x: !torch.vtensor<[1,1,8,8],f32>) -> !torch.vtensor<[1,1,3,3],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %k = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %p = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.relu %x : !torch.vtensor<[1,1,8,8],f32> -> !torch.vtensor<[1,1,8,8],f32>
  %1 = torch.aten.asinh %0 : !torch.vtensor<[1,1,8,8],f32> -> !torch.vtensor<[1,1,8,8],f32>
  %2 = torch.aten.max_pool2d %1, %k, %k, %p, %k, %false : !torch.vtensor<[1,1,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,1,3,3],f32>
  %3 = torch.aten.exp %2 : !torch.vtensor<[1,1,3,3],f32> -> !torch.vtensor<[1,1,3,3],f32>
  return %3 : !torch.vtensor<[1,1,3,3],f32>
}
