// RUN: versa-import %s | FileCheck %s
// Layers: linear with a constant weight is a matmul with the weight transposed at import time
// (no run-time transpose) plus a bias add; conv2d's bias is a broadcast add after the conv.

// CHECK-LABEL: func.func @linear
// CHECK: %[[WT:.*]] = "versa.constant"() {value = dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>}
// CHECK-NOT: versa.transpose
// CHECK: %[[MM:.*]] = "versa.matmul"(%arg0, %[[WT]]) : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: "versa.add"(%[[MM]], %arg1)
func.func @linear(%x: !torch.vtensor<[4,2],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[4,3],f32> {
  %w = torch.vtensor.literal(dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>) : !torch.vtensor<[3,2],f32>
  %0 = torch.aten.linear %x, %w, %b : !torch.vtensor<[4,2],f32>, !torch.vtensor<[3,2],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// CHECK-LABEL: func.func @conv_bn_pool
// CHECK: %[[C:.*]] = "versa.conv2d"(%arg0, %arg1) {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK: %[[BIAS:.*]] = "versa.reshape"(%arg2) : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[Y:.*]] = "versa.add"(%[[C]], %[[BIAS]])
// CHECK: %[[N:.*]] = "versa.batch_norm"(%[[Y]], {{.*}}) {epsilon = 9.99999974E-6 : f32}
// CHECK: "versa.max_pool2d"(%[[N]]) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
func.func @conv_bn_pool(%x: !torch.vtensor<[1,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f32>, %b: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,2,2],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %eps = torch.constant.float 1.0e-05
  %mom = torch.constant.float 0.1
  %stride = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zero = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %one = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.conv2d %x, %w, %b, %stride, %pad, %one, %int1 : !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[1,4,4,4],f32>
  %1 = torch.aten.batch_norm %0, %s, %b, %b, %s, %false, %mom, %eps, %false : !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[1,4,4,4],f32>
  %2 = torch.aten.max_pool2d %1, %stride, %stride, %zero, %one, %false : !torch.vtensor<[1,4,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,4,2,2],f32>
  return %2 : !torch.vtensor<[1,4,2,2],f32>
}

// CHECK-LABEL: func.func @attention
// CHECK: %[[KT:.*]] = "versa.transpose"(%arg1) {perm = array<i64: 0, 2, 1>}
// CHECK: %[[S:.*]] = "versa.matmul"(%arg0, %[[KT]]) : (tensor<2x5x8xf32>, tensor<2x8x5xf32>) -> tensor<2x5x5xf32>
// CHECK: "versa.mul"(%[[S]], %{{.*}})
// CHECK: "versa.select"
// CHECK: %[[P:.*]] = "versa.softmax"({{.*}}) {axis = 2 : i64}
// CHECK: "versa.matmul"(%[[P]], %arg2)
func.func @attention(%q: !torch.vtensor<[2,5,8],f32>, %k: !torch.vtensor<[2,5,8],f32>, %v: !torch.vtensor<[2,5,8],f32>) -> !torch.vtensor<[2,5,8],f32> {
  %none = torch.constant.none
  %zero = torch.constant.float 0.0
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0 = torch.aten.scaled_dot_product_attention %q, %k, %v, %none, %zero, %true, %none, %false : !torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,8],f32>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}
