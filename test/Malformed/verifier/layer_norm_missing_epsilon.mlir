// Verifier rule, from invalid.mlir.
func.func @layer_norm_missing_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op requires attribute 'epsilon'}}
  %0 = "versa.layer_norm"(%x, %g, %g) {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
