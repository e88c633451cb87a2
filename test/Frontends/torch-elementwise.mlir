// RUN: versa-import %s | FileCheck %s
// Elementwise torch ops: scalar operands become 0-d constants, alpha a multiply, activations
// without a versa op their compositions, comparisons an i1 compare, dtype changes one cast.

// CHECK-LABEL: func.func @arith
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[TWO:.*]] = "versa.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK: %[[SCALED:.*]] = "versa.mul"(%[[B]], %[[TWO]])
// CHECK: %[[SUM:.*]] = "versa.add"(%[[A]], %[[SCALED]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: "versa.sub"
// CHECK: return
func.func @arith(%a: !torch.vtensor<[4,8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[4,8],f32> {
  %int2 = torch.constant.int 2
  %float1 = torch.constant.float 1.5
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %a, %b, %int2 : !torch.vtensor<[4,8],f32>, !torch.vtensor<[8],f32>, !torch.int -> !torch.vtensor<[4,8],f32>
  %1 = torch.aten.sub.Scalar %0, %float1, %int1 : !torch.vtensor<[4,8],f32>, !torch.float, !torch.int -> !torch.vtensor<[4,8],f32>
  return %1 : !torch.vtensor<[4,8],f32>
}

// CHECK-LABEL: func.func @activations
// CHECK: %[[SIG:.*]] = "versa.sigmoid"(%arg0)
// CHECK: "versa.mul"(%arg0, %[[SIG]])
// CHECK: "versa.clamp"({{.*}}) {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK: "versa.gelu"({{.*}}) {approximate = "tanh"}
func.func @activations(%x: !torch.vtensor<[16],f32>) -> !torch.vtensor<[16],f32> {
  %str = torch.constant.str "tanh"
  %0 = torch.aten.silu %x : !torch.vtensor<[16],f32> -> !torch.vtensor<[16],f32>
  %1 = torch.aten.relu6 %0 : !torch.vtensor<[16],f32> -> !torch.vtensor<[16],f32>
  %2 = torch.aten.gelu %1, %str : !torch.vtensor<[16],f32>, !torch.str -> !torch.vtensor<[16],f32>
  return %2 : !torch.vtensor<[16],f32>
}

// CHECK-LABEL: func.func @compare_select
// CHECK: %[[MASK:.*]] = "versa.compare"(%arg0, %{{.*}}) {predicate = "gt"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
// CHECK: "versa.select"(%[[MASK]], %arg0, %{{.*}})
// CHECK: "versa.cast"({{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi64>
func.func @compare_select(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],si64> {
  %float0 = torch.constant.float 0.0
  %int4 = torch.constant.int 4
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.gt.Scalar %x, %float0 : !torch.vtensor<[2,3],f32>, !torch.float -> !torch.vtensor<[2,3],i1>
  %1 = torch.aten.where.ScalarOther %0, %x, %float0 : !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],f32>, !torch.float -> !torch.vtensor<[2,3],f32>
  %2 = torch.aten.to.dtype %1, %int4, %false, %false, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2,3],si64>
  return %2 : !torch.vtensor<[2,3],si64>
}
