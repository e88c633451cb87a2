// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 20261123 (program 12238, generated), reduced by versa-fuzz.
// compile-error in every pipeline: offset 0 is out-of-bounds: 0 >= 0. A pool over a batch of 0
// whose stride skips an input row sliced the input (pool_regions); a slice of an empty tensor
// is now tensor.empty (linalg_builders.extract).
func.func @main(%arg0: tensor<0x1x2x1xf32>) -> (tensor<0x1x1x1xf32>, tensor<0x1x2x1xf32>, tensor<0x1x1x1xf32>) {
  %0 = "versa.avg_pool2d"(%arg0) {kernel = array<i64: 1, 1>, strides = array<i64: 2, 1>} : (tensor<0x1x2x1xf32>) -> tensor<0x1x1x1xf32>
  return %0, %arg0, %0 : tensor<0x1x1x1xf32>, tensor<0x1x2x1xf32>, tensor<0x1x1x1xf32>
}
