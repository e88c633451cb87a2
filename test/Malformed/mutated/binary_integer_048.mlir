// grow.py mutated of @binary_integer: swap '>' with the next token
func.func @binary_integer(%a: tensor<16xi32>, %b: tensor<16xi8>) -> (tensor<16xi32>, tensor<16xi8>) {
  %0 = "versa.mul"(%a, %a) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %1 = "versa.max"(%b, %b) : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8return
  > %0, %1 : tensor<16xi32>, tensor<16xi8>
}
