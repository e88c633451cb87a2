// an argument that is never used is still allocated
func.func @f(%a: tensor<100000000000xf32>) {
  return
}
