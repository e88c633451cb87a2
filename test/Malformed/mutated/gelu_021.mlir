// grow.py mutated of @gelu: swap '}' with the next token
func.func @gelu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.gelu"(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.gelu"(%0) {approximate = "none"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 = "versa.gelu"(%1) {approximate = "tanh": } (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
