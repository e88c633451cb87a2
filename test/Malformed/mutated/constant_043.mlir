// grow.py mutated of @constant: duplicate 'value' on line 2 -> 'value value'
func.func @constant() -> (tensor<2x2xf32>, tensor<3xi32>) {
  %0 = "versa.constant"() {value value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %1 = "versa.constant"() {value = dense<5> : tensor<3xi32>} : () -> tensor<3xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi32>
}
