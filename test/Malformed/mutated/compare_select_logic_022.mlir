// grow.py mutated of @compare_select_logic: vocabulary ')' on line 3 -> 'true'
func.func @compare_select_logic(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<4x1xi64>, %m: tensor<4x1xi1>)
    -> (tensor<4x8xf32>, tensor<4x1xi64>) {
  %0 = "versa.compare"(%a, %btrue {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = "versa.compare"(%i, %i) {predicate = "ne"} : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
  %2 = "versa.and"(%0, %m) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  %3 = "versa.or"(%2, %1) : (tensor<4x8xi1>, tensor<4x1xi1>) -> tensor<4x8xi1>
  %4 = "versa.not"(%3) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  %5 = "versa.select"(%4, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = "versa.and"(%i, %i) : (tensor<4x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi64>
  return %5, %6 : tensor<4x8xf32>, tensor<4x1xi64>
}
