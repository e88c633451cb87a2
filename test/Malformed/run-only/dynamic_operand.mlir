// A versa op on a dynamic shape: it verifies; versa-run needs the dim's size (--dim or --input-shape).
func.func @dynamic_operand(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "versa.relu"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
