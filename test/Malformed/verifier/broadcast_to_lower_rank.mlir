// Verifier rule, from invalid.mlir.
func.func @broadcast_to_lower_rank(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'versa.broadcast_to' op cannot broadcast rank 3 to lower rank 2}}
  %0 = "versa.broadcast_to"(%x) : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
