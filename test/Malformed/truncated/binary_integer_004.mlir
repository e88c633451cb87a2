// grow.py truncated of @binary_integer: cut after byte 128
func.func @binary_integer(%a: tensor<16xi32>, %b: tensor<16xi8>) -> (tensor<16xi32>, tensor<16xi8>) {
  %0 = "versa.mul"(%a, %a)