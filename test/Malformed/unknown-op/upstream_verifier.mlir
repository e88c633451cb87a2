// an upstream op whose types disagree
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf16>
  return %a : tensor<4xf32>
}
