// Verifier rule, from invalid.mlir.
func.func @pool_kernel_length(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op attribute 'kernel' must have 2 elements, got 3}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
