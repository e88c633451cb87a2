// RUN: versa-opt %s --versa-gpu-outline-rows | FileCheck %s

// Softmax and layer_norm over trailing axes move into private functions marked for
// versa-gpu-rows (which replaces their calls by a kernel after bufferization); softmax over a
// leading axis stays where it is.
// CHECK-DAG:   func.func private @versa_gpu_layer_norm_1(%{{.*}}: tensor<4x6x10xf32>, %{{.*}}: tensor<6x10xf32>, %{{.*}}: tensor<6x10xf32>) -> tensor<4x6x10xf32> attributes {versa.gpu_rows = {epsilon = 1.000000e-03 : f32, kind = "layer_norm", lead = 1 : i64}}
// CHECK-DAG:   func.func private @versa_gpu_softmax_0(%[[X:.*]]: tensor<8x100xf32>) -> tensor<8x100xf32> attributes {versa.gpu_rows = {epsilon = 0.000000e+00 : f32, kind = "softmax", lead = 1 : i64}}
// CHECK-LABEL: func.func @main
//       CHECK:   call @versa_gpu_softmax_0(%arg0)
//       CHECK:   call @versa_gpu_layer_norm_1(%arg1, %arg2, %arg3)
//       CHECK:   "versa.softmax"(%arg1) {axis = 0 : i64}
func.func @main(%x: tensor<8x100xf32>, %y: tensor<4x6x10xf32>, %g: tensor<6x10xf32>, %b: tensor<6x10xf32>)
    -> (tensor<8x100xf32>, tensor<4x6x10xf32>, tensor<4x6x10xf32>) {
  %0 = "versa.softmax"(%x) {axis = 1 : i64} : (tensor<8x100xf32>) -> tensor<8x100xf32>
  %1 = "versa.layer_norm"(%y, %g, %b) {axis = 1 : i64, epsilon = 1.0e-03 : f32}
      : (tensor<4x6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>) -> tensor<4x6x10xf32>
  %2 = "versa.softmax"(%y) {axis = 0 : i64} : (tensor<4x6x10xf32>) -> tensor<4x6x10xf32>
  return %0, %1, %2 : tensor<8x100xf32>, tensor<4x6x10xf32>, tensor<4x6x10xf32>
}
