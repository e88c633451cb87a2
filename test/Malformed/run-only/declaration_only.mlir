// a declaration has no body to run
func.func private @f(%a: tensor<4xf32>) -> tensor<4xf32>
