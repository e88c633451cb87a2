// grow.py truncated of @i64_and_i1: cut after byte 560
func.func @i64_and_i1(%a: tensor<4xi64>, %b: tensor<i64>, %m: tensor<4xi1>) -> (tensor<4xi64>, tensor<3x2xi64>) {
  %0 = "versa.add"(%a, %b) : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  %1 = "versa.neg"(%0) : (tensor<4xi64>) -> tensor<4xi64>
  %2 = "versa.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
  %3 = "versa.concat"(%m, %2) {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi1>) -> tensor<6xi1>
  %4 = "versa.reshape"(%3) : (tensor<6xi1>) -> tensor<2x3xi1>
  %5 = "versa.transpose"(%4) {perm = array<i64: 1, 0>} : (tensor