// 2 elements for a tensor of 3
func.func @f() -> tensor<3xf32> {
  %0 = "versa.constant"() {value = dense<[1.0, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
