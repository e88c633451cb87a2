// RUN: not versa-import %s 2>&1 | FileCheck %s
// Every op that neither a versa rule nor torch-mlir's linalg lowering converts is listed once
// with its count and lines; nothing half-converted is printed.

// CHECK: error: 3 torch op(s) cannot be converted to versa:
// CHECK-DAG: 2x torch.aten.lgamma: neither a versa rule nor torch-mlir's linalg lowering converts it (at line 14, line 15)
// CHECK-DAG: 1x torch.aten.nonzero: a result that is not a static tensor of a supported type (at line 16)
// CHECK-NOT: func.func
func.func @f(%x: !torch.vtensor<[1,1,8,8],f32>) -> (!torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],f32>) {
  %int-1 = torch.constant.int -1
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %v0 = torch.operator "torch.aten.lgamma"(%x) : (!torch.vtensor<[1,1,8,8],f32>) -> !torch.vtensor<[1,1,8,8],f32>
  %v1 = torch.operator "torch.aten.lgamma"(%v0) : (!torch.vtensor<[1,1,8,8],f32>) -> !torch.vtensor<[1,1,8,8],f32>
  %n = torch.aten.nonzero %x : !torch.vtensor<[1,1,8,8],f32> -> !torch.vtensor<[?,4],si64>
  return %v0, %v1 : !torch.vtensor<[1,1,8,8],f32>, !torch.vtensor<[1,1,8,8],f32>
}
