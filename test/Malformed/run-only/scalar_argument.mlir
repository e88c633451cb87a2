// the JIT takes tensors
func.func @f(%a: f32) -> f32 {
  return %a : f32
}
