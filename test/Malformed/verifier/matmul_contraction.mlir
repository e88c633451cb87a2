// Verifier rule, from invalid.mlir.
func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'versa.matmul' op contraction dims differ: K = 8 (lhs) vs 6 (rhs)}}
  %0 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
