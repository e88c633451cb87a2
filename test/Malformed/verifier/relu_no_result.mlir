// Verifier rule: result count.
func.func @relu_no_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects exactly 1 results, but got 0}}
  "versa.relu"(%a) : (tensor<4xf32>) -> ()
  return
}
