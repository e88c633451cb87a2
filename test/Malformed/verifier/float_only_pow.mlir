// Verifier rule, from invalid.mlir.
func.func @float_only_pow(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'versa.pow' op expects a float element type, got i8}}
  %0 = "versa.pow"(%a, %a) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
