// Verifier rule: versa.yield only inside versa.fused.
func.func @yield_outside_fused(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'versa.yield' op}}
  "versa.yield"(%a) : (tensor<4xf32>) -> ()
  return %a : tensor<4xf32>
}
