// Verifier rule, from invalid.mlir.
func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.matmul' op operands must have rank >= 2}}
  %0 = "versa.matmul"(%a, %b) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
