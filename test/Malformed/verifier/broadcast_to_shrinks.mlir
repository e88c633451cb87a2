// Verifier rule, from invalid.mlir.
// A broadcast that would stretch the result, not the input.
func.func @broadcast_to_shrinks(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op shape [3, 4] cannot broadcast to [1, 4]}}
  %0 = "versa.broadcast_to"(%x) : (tensor<3x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
