// Verifier rule, from invalid.mlir.
func.func @fused_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op attribute 'kind' must be one of 'elementwise', 'epilogue', 'reduction', got "loop"}}
  %0 = "versa.fused"() ({
    "versa.yield"(%a) : (tensor<4xf32>) -> ()
  }) {kind = "loop"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
