// grow.py mutated of @slice: swap '4x3xf32' with the next token
func.func @slice(%x: tensor<8x10xf32>) -> (tensor<4x10xf32>, tensor<>4x3xf32) {
  %0 = "versa.slice"(%x) {starts = array<i64: 2, 0>, limits = array<i64: 6, 10>} : (tensor<8x10xf32>) -> tensor<4x10xf32>
  %1 = "versa.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 8, 9>, strides = array<i64: 2, 3>} : (tensor<8x10xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x3xf32>
}
