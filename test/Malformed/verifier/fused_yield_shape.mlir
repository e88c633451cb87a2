// Verifier rule, from invalid.mlir.
func.func @fused_yield_shape(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.fused' op 'versa.yield' operand types must match the result types}}
  %0 = "versa.fused"() ({
    %1 = "versa.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "versa.yield"(%1) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
