// grow.py mutated of @indexing: swap '>' with the next token
func.func @indexing(%t: tensor<10x16xf32>, %ids: tensor<2x5xi64>, %x: tensor<3x10xf32>)
    -> (tensor<2x5x16xf32>, tensor<3xi64>, tensor<1x10xi64>, tensor<2x5xi64>) {
  %0 = "versa.gather"(%t, %ids) {axis = 0 : i64} : (tensor<10x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32%1
  > = "versa.iota"() {axis = 1 : i64} : () -> tensor<2x5xi64>
  %2 = "versa.reduce_argmax"(%x) {axis = -1 : i64} : (tensor<3x10xf32>) -> tensor<3xi64>
  %3 = "versa.reduce_argmax"(%x) {axis = 0 : i64, keepdims = true} : (tensor<3x10xf32>) -> tensor<1x10xi64>
  %4 = "versa.cumsum"(%1) {axis = 1 : i64} : (tensor<2x5xi64>) -> tensor<2x5xi64>
  return %0, %2, %3, %4 : tensor<2x5x16xf32>, tensor<3xi64>, tensor<1x10xi64>, tensor<2x5xi64>
}
