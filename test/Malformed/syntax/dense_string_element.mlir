// strings in a float dense
func.func @f() -> tensor<2xf32> {
  %0 = "versa.constant"() {value = dense<["a", "b"]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
