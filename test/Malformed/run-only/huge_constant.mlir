// a splat constant of 372 GiB
func.func @f() -> tensor<1xf32> {
  %0 = "versa.constant"() {value = dense<1.0> : tensor<100000000000xf32>} : () -> tensor<100000000000xf32>
  %1 = "versa.reduce_sum"(%0) {axes = array<i64: 0>, keepdims = true} : (tensor<100000000000xf32>) -> tensor<1xf32>
  return %1 : tensor<1xf32>
}
