// Verifier rule, from invalid.mlir.
func.func @fused_elementwise_only(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.fused' op an elementwise group may hold only elementwise versa ops, found 'versa.matmul'}}
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "versa.yield"(%1) : (tensor<4x4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
