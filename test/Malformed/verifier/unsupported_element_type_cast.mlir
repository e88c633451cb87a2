// Verifier rule, from invalid.mlir.
func.func @unsupported_element_type_cast(%a: tensor<4xf32>) -> tensor<4xi16> {
  // expected-error @+1 {{'versa.cast' op element type i16 is not one of f32, f16, bf16, i32, i8, i64, i1}}
  %0 = "versa.cast"(%a) : (tensor<4xf32>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}
