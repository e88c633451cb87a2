// Verifier rule, from invalid.mlir.
func.func @fused_empty_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must have exactly one block}}
  %0 = "versa.fused"() ({
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
