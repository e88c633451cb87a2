// Verifier rule, from invalid.mlir.
func.func @pool_rank(%x: tensor<3x8x8xf32>) -> tensor<3x4x4xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op input must have rank 4}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> tensor<3x4x4xf32>
  return %0 : tensor<3x4x4xf32>
}
