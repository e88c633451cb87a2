// grow.py truncated of @indexing: cut after byte 461
func.func @indexing(%t: tensor<10x16xf32>, %ids: tensor<2x5xi64>, %x: tensor<3x10xf32>)
    -> (tensor<2x5x16xf32>, tensor<3xi64>, tensor<1x10xi64>, tensor<2x5xi64>) {
  %0 = "versa.gather"(%t, %ids) {axis = 0 : i64} : (tensor<10x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  %1 = "versa.iota"() {axis = 1 : i64} : () -> tensor<2x5xi64>
  %2 = "versa.reduce_argmax"(%x) {axis = -1 : i64} : (tensor<3x10xf32>) -> tensor<3xi64>
  %3 = "versa.reduce_argmax"(%x