// Verifier rule, from invalid.mlir.
func.func @broadcast_to_incompatible(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op operand shapes [2, 4] and [3, 4] are not broadcast-compatible (dim 0: 2 vs 3)}}
  %0 = "versa.broadcast_to"(%x) : (tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
