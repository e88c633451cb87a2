// Verifier rule, from invalid.mlir.
func.func @float_only_reduce_mean(%a: tensor<4x4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'versa.reduce_mean' op expects a float element type, got i32}}
  %0 = "versa.reduce_mean"(%a) {axes = array<i64: 0>} : (tensor<4x4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
