// the JIT takes tensors
func.func @f(%a: memref<4xf32>) {
  return
}
