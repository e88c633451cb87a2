// grow.py truncated of @fused: cut after byte 178
func.func @fused(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<