// grow.py mutated of @cast: duplicate 'tensor' on line 5 -> 'tensor tensor'
func.func @cast(%x: tensor<2x8xf32>) -> tensor<2x8xi8> {
  %0 = "versa.cast"(%x) : (tensor<2x8xf32>) -> tensor<2x8xi32>
  %1 = "versa.cast"(%0) : (tensor<2x8xi32>) -> tensor<2x8xf16>
  %2 = "versa.cast"(%1) : (tensor<2x8xf16>) -> tensor<2x8xbf16>
  %3 = "versa.cast"(%2) : (tensor<2x8xbf16>) -> tensor tensor<2x8xi8>
  return %3 : tensor<2x8xi8>
}
