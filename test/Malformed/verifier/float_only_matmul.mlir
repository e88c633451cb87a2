// Verifier rule, from invalid.mlir.
func.func @float_only_matmul(%a: tensor<4x4xi32>) -> tensor<4x4xi32> {
  // expected-error @+1 {{'versa.matmul' op expects a float element type, got i32}}
  %0 = "versa.matmul"(%a, %a) : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}
