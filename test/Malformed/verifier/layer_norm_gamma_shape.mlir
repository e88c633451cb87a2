// Verifier rule, from invalid.mlir.
func.func @layer_norm_gamma_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'versa.layer_norm' op gamma shape [8] must equal the normalised dims [4, 8]}}
  %0 = "versa.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
