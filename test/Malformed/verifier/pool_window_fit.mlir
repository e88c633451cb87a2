// Verifier rule, from invalid.mlir.
func.func @pool_window_fit(%x: tensor<1x3x8x2xf32>) -> tensor<1x3x6x1xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op window of extent 3 does not fit in padded width = 2}}
  %0 = "versa.max_pool2d"(%x) {kernel = array<i64: 3, 3>} : (tensor<1x3x8x2xf32>) -> tensor<1x3x6x1xf32>
  return %0 : tensor<1x3x6x1xf32>
}
