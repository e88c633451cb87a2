// Verifier rule, from invalid.mlir.
// The region captures its inputs from the enclosing block; it takes no block arguments.
func.func @fused_block_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.fused' op region block must have no arguments (inputs are captured from the enclosing block)}}
  %0 = "versa.fused"() ({
  ^bb0(%x: tensor<4xf32>):
    "versa.yield"(%x) : (tensor<4xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
