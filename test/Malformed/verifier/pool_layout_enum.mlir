// Verifier rule, from invalid.mlir.
func.func @pool_layout_enum(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'versa.avg_pool2d' op attribute 'layout' must be one of 'NCHW', 'NHWC', got "nhwc"}}
  %0 = "versa.avg_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "nhwc"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
