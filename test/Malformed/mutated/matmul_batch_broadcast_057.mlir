// grow.py mutated of @matmul_batch_broadcast: replace 'func.func' on line 1 -> ')'
) @matmul_batch_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = "versa.matmul"(%a, %b) : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}
