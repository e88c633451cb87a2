// a 372 GiB argument
func.func @f(%a: tensor<100000000000xf32>) -> tensor<100000000000xf32> {
  %0 = "versa.relu"(%a) : (tensor<100000000000xf32>) -> tensor<100000000000xf32>
  return %0 : tensor<100000000000xf32>
}
