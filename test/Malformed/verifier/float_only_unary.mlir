// Verifier rule, from invalid.mlir.
func.func @float_only_unary(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'versa.exp' op expects a float element type, got i32}}
  %0 = "versa.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
