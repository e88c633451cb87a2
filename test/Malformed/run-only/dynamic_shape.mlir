// A dynamic shape: versa-run needs the dim's size (--dim or --input-shape).
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
