// Verifier rule, from invalid.mlir.
func.func @pool_padding_not_below_kernel(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x11x9xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op padding must be smaller than the kernel}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x11x9xf32>
  return %0 : tensor<1x3x11x9xf32>
}
