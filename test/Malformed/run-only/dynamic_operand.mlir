// A versa op on a dynamic shape: the verifier accepts it, the JIT takes static shapes only.
func.func @dynamic_operand(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "versa.relu"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
