// Verifier rule: concat of 0-d tensors (NumPy refuses them too).
func.func @concat_rank0(%a: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{operands must have rank >= 1}}
  %0 = "versa.concat"(%a, %a) {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
