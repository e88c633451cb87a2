// Verifier rule: result count.
func.func @relu_two_results(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects exactly 1 results, but got 2}}
  %0:2 = "versa.relu"(%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}
