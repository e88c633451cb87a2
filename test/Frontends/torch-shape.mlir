// RUN: versa-import %s | FileCheck %s
// Views are one reshape to the declared shape; permute a transpose; slicing a strided slice;
// select.int a slice and a reshape; cat a concat; reductions keep their axes.

// CHECK-LABEL: func.func @views
// CHECK: %[[R:.*]] = "versa.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[T:.*]] = "versa.transpose"(%[[R]]) {perm = array<i64: 1, 0>}
// CHECK: %[[S:.*]] = "versa.slice"(%[[T]]) {limits = array<i64: 4, 5>, starts = array<i64: 0, 1>, strides = array<i64: 1, 2>}
// CHECK: "versa.concat"(%[[S]], %[[S]], %[[S]]) {axis = 1 : i64}
func.func @views(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,6],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int5 = torch.constant.int 5
  %int-1 = torch.constant.int -1
  %0 = torch.aten.flatten.using_ints %x, %int0, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[6,4],f32>
  %perm = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.permute %0, %perm : !torch.vtensor<[6,4],f32>, !torch.list<int> -> !torch.vtensor<[4,6],f32>
  %2 = torch.aten.slice.Tensor %1, %int-1, %int1, %int5, %int2 : !torch.vtensor<[4,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[4,2],f32>
  %list = torch.prim.ListConstruct %2, %2, %2 : (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],f32>) -> !torch.list<vtensor>
  %3 = torch.aten.cat %list, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[4,6],f32>
  return %3 : !torch.vtensor<[4,6],f32>
}

// CHECK-LABEL: func.func @reductions
// CHECK: "versa.reduce_mean"(%arg0) {axes = array<i64: 1, 2>, keepdims = true}
// CHECK: "versa.reduce_max"(%arg0) {axes = array<i64: 2>, keepdims = false}
// CHECK: "versa.reduce_argmax"(%arg0) {axis = 2 : i64}
func.func @reductions(%x: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.mean.dim %x, %dims, %true, %none : !torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1,1],f32>
  %values, %indices = torch.aten.max.dim %x, %int2, %false : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
  return %0, %values, %indices : !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>
}
