// Verifier rule, from invalid.mlir.
func.func @fused_no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must end with 'versa.yield'}}
  %0 = "versa.fused"() ({
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
