// Verifier rule, from invalid.mlir.
func.func @broadcast_incompatible(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'versa.add' op operand shapes [4, 8] and [3, 8] are not broadcast-compatible (dim 0: 4 vs 3)}}
  %0 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
