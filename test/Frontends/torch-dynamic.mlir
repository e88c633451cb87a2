// RUN: versa-import %s | FileCheck %s
// Dynamic dims (`?`) stay dynamic: arguments, results and the ops between them, with the
// export's symbols and ranges (`versa.dims`, `versa.dim_ranges`) carried over to the versa
// function. Sizes read with aten.size.int build the view; a slice on a static dim is a gather.

// CHECK-LABEL: func.func @block
// CHECK-SAME: (%arg0: tensor<?x?x8xf32> {versa.dims = ["s0", "s1", 8]})
// CHECK-SAME: -> tensor<?x?x2x2xf32>
// CHECK-SAME: versa.dim_ranges = {s0 = array<i64: 1, 64>, s1 = array<i64: 2, -1>}
// CHECK: "versa.matmul"(%arg0, %{{.*}}) : (tensor<?x?x8xf32>, tensor<8x4xf32>) -> tensor<?x?x4xf32>
// CHECK: "versa.gelu"(%{{.*}}) {approximate = "none"} : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK: "versa.softmax"(%{{.*}}) {axis = 2 : i64} : (tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
// CHECK: "versa.reshape"(%{{.*}}) : (tensor<?x?x4xf32>) -> tensor<?x?x2x2xf32>
func.func @block(%x: !torch.vtensor<[?,?,8],f32> {versa.dims = ["s0", "s1", 8]}) -> !torch.vtensor<[?,?,2,2],f32>
    attributes {versa.dim_ranges = {s0 = array<i64: 1, 64>, s1 = array<i64: 2, -1>}} {
  %w = torch.vtensor.literal(dense<0.5> : tensor<4x8xf32>) : !torch.vtensor<[4,8],f32>
  %none = torch.constant.none
  %0 = torch.aten.linear %x, %w, %none : !torch.vtensor<[?,?,8],f32>, !torch.vtensor<[4,8],f32>, !torch.none -> !torch.vtensor<[?,?,4],f32>
  %str = torch.constant.str "none"
  %1 = torch.aten.gelu %0, %str : !torch.vtensor<[?,?,4],f32>, !torch.str -> !torch.vtensor<[?,?,4],f32>
  %int2 = torch.constant.int 2
  %2 = torch.aten.softmax.int %1, %int2, %none : !torch.vtensor<[?,?,4],f32>, !torch.int, !torch.none -> !torch.vtensor<[?,?,4],f32>
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %b = torch.aten.size.int %2, %int0 : !torch.vtensor<[?,?,4],f32>, !torch.int -> !torch.int
  %t = torch.aten.size.int %2, %int1 : !torch.vtensor<[?,?,4],f32>, !torch.int -> !torch.int
  %sizes = torch.prim.ListConstruct %b, %t, %int2, %int2 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.aten.view %2, %sizes : !torch.vtensor<[?,?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,?,2,2],f32>
  return %3 : !torch.vtensor<[?,?,2,2],f32>
}

// CHECK-LABEL: func.func @sliced
// CHECK: %[[I:.*]] = "versa.constant"() {value = dense<[1, 2]> : tensor<2xi64>}
// CHECK: "versa.gather"(%arg0, %[[I]]) {axis = 1 : i64} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x2xf32>
// CHECK: "versa.reduce_mean"(%{{.*}}) {axes = array<i64: 0>, keepdims = false} : (tensor<?x2xf32>) -> tensor<2xf32>
func.func @sliced(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[2],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.slice.Tensor %x, %int1, %int1, %int3, %int1 : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,2],f32>
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %1 = torch.aten.mean.dim %0, %dims, %false, %none : !torch.vtensor<[?,2],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2],f32>
  return %1 : !torch.vtensor<[2],f32>
}

// A size read off an argument sizes the ops that make a tensor of it (rules/runtime_sizes.py):
// arange(x.size(1)) is an iota like x, a static buffer cut to it a gather of that iota (one,
// after CSE), and an expand to x.size(0) a select of an all-true mask sized by x's dim 0.
// CHECK-LABEL: func.func @positions
// CHECK: %[[P:.+]] = "versa.iota"(%arg0) {axis = 0 : i64, dims = array<i64: 1>} : (tensor<?x?xi64>) -> tensor<?xi64>
// CHECK: %[[CUT:.+]] = "versa.gather"(%{{.+}}, %[[P]]) {axis = 1 : i64} : (tensor<1x16xi64>, tensor<?xi64>) -> tensor<1x?xi64>
// CHECK: %[[ROWS:.+]] = "versa.iota"(%arg0) {axis = 0 : i64, dims = array<i64: 0, -1>} : (tensor<?x?xi64>) -> tensor<?x1xi64>
// CHECK: %[[ALL:.+]] = "versa.compare"(%[[ROWS]], %{{.+}}) {predicate = "ge"}
// CHECK: "versa.select"(%[[ALL]], %[[CUT]], %[[CUT]]) : (tensor<?x1xi1>, tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<?x?xi64>
func.func @positions(%x: !torch.vtensor<[?,?],si64> {versa.dims = ["s0", "s1"]}) -> (!torch.vtensor<[?],si64>, !torch.vtensor<[?,?],si64>)
    attributes {versa.dim_ranges = {s0 = array<i64: 1, 8>, s1 = array<i64: 2, 16>}} {
  %buffer = torch.vtensor.literal(dense<3> : tensor<1x16xsi64>) : !torch.vtensor<[1,16],si64>
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %b = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,?],si64>, !torch.int -> !torch.int
  %s = torch.aten.size.int %x, %int1 : !torch.vtensor<[?,?],si64>, !torch.int -> !torch.int
  %0 = torch.aten.arange %s, %none, %none, %none, %none : !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?],si64>
  %1 = torch.aten.slice.Tensor %buffer, %int1, %int0, %s, %int1 : !torch.vtensor<[1,16],si64>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,?],si64>
  %sizes = torch.prim.ListConstruct %b, %s : (!torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.aten.expand %1, %sizes, %false : !torch.vtensor<[1,?],si64>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?,?],si64>
  return %0, %2 : !torch.vtensor<[?],si64>, !torch.vtensor<[?,?],si64>
}
