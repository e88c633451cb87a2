// Verifier rule, from invalid.mlir.
func.func @fused_body_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "versa.fused"() ({
    // expected-error @+1 {{'versa.relu' op result shape [8] does not match the expected shape [4]}}
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<8xf32>
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
