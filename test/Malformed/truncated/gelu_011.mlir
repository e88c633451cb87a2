// grow.py truncated of @gelu: cut after byte 219
func.func @gelu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = "versa.gelu"(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = "versa.gelu"(%0) {approximate = "none"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %2 =