// grow.py mutated of @unary: vocabulary 'func.func' on line 1 -> 'nan'
nan @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "versa.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "versa.abs"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "versa.exp"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "versa.log"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "versa.sqrt"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "versa.rsqrt"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "versa.tanh"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "versa.sigmoid"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "versa.relu"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "versa.erf"(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %9 : tensor<2x3xf32>
}
