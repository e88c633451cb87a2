// Verifier rule, from invalid.mlir.
func.func @matmul_batch_broadcast(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'versa.matmul' op operand shapes [2] and [3] are not broadcast-compatible}}
  %0 = "versa.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}
