// Verifier rule: region count.
func.func @fused_no_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects exactly 1 regions, but got 0}}
  %0 = "versa.fused"() {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
