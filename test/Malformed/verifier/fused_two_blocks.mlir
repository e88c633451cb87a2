// Verifier rule, from invalid.mlir.
func.func @fused_two_blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region must have exactly one block}}
  %0 = "versa.fused"() ({
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  ^bb1:
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
