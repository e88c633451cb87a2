// grow.py truncated of @unary_other_types: cut after byte 448
func.func @unary_other_types(%h: tensor<8xf16>, %b: tensor<8xbf16>, %c: tensor<8xi8>, %i: tensor<8xi32>)
    -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xi8>, tensor<8xi32>) {
  %0 = "versa.exp"(%h) : (tensor<8xf16>) -> tensor<8xf16>
  %1 = "versa.tanh"(%b) : (tensor<8xbf16>) -> tensor<8xbf16>
  %2 = "versa.relu"(%c) : (tensor<8xi8>) -> tensor<8xi8>
  %3 = "versa.abs"(%i) : (tensor<8xi32>) -> tensor<8xi32>
  return %0, %1, %2, %3 : tensor<8xf16>