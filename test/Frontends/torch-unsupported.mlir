// RUN: not versa-import %s 2>&1 | FileCheck %s
// Every unconvertible op is listed once with its count; nothing half-converted is printed.

// CHECK: error: 3 torch op(s) cannot be converted to versa:
// CHECK-DAG: 2x torch.aten.sort (at line 13, line 14)
// CHECK-DAG: 1x torch.aten.max_pool2d: dilated pooling (at line 17)
// CHECK-NOT: func.func
func.func @f(%x: !torch.vtensor<[1,1,8,8],f32>) -> (!torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,3,3],f32>) {
  %int-1 = torch.constant.int -1
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %v0, %i0 = torch.aten.sort %x, %int-1, %false : !torch.vtensor<[1,1,8,8],f32>, !torch.int, !torch.bool -> !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],si64>
  %v1, %i1 = torch.aten.sort %v0, %int-1, %false : !torch.vtensor<[1,1,8,8],f32>, !torch.int, !torch.bool -> !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],si64>
  %k = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %p = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.aten.max_pool2d %x, %k, %k, %p, %k, %false : !torch.vtensor<[1,1,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,1,3,3],f32>
  return %v0, %v1, %2 : !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,3,3],f32>
}
