// grow.py mutated of @constant: delete '>' on line 1 -> ''
func.func @constant() - (tensor<2x2xf32>, tensor<3xi32>) {
  %0 = "versa.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %1 = "versa.constant"() {value = dense<5> : tensor<3xi32>} : () -> tensor<3xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi32>
}
