// grow.py mutated of @fused: vocabulary '>' on line 4 -> 'tensor<4xf32>'
func.func @fused(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "versa.fused"() ({
    %1 = "versa.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = "versa.relu"(%1) : (tensor<4x8xf32>) -tensor<4xf32> tensor<4x8xf32>
    "versa.yield"(%2) : (tensor<4x8xf32>) -> ()
  }) {kind = "elementwise"} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
