// Verifier rule: versa ops take tensors.
func.func @memref_operand(%a: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{expects ranked tensors, got memref<4xf32>}}
  %0 = "versa.relu"(%a) : (memref<4xf32>) -> memref<4xf32>
  return %0 : memref<4xf32>
}
