// Verifier rule, from invalid.mlir.
func.func @unsupported_element_type(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'versa.neg' op element type f64 is not one of f32, f16, bf16, i32, i8, i64, i1}}
  %0 = "versa.neg"(%a) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
