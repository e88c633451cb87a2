// Verifier rule, from invalid.mlir.
func.func @clamp_min_greater_than_max(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'versa.clamp' op min 6.0 is greater than max 0.0}}
  %0 = "versa.clamp"(%x) {min = 6.0 : f32, max = 0.0 : f32} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
