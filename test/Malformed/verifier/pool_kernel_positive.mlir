// Verifier rule, from invalid.mlir.
func.func @pool_kernel_positive(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op attribute 'kernel' must be positive, got [0, 1]}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}
