// grow.py mutated of @fused_kinds: replace '<' on line 12 -> 'tensor'
func.func @fused_kinds(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = "versa.fused"() ({
    %1 = "versa.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = "versa.add"(%1, %c) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    "versa.yield"(%2) : (tensor<4x16xf32>) -> ()
  }) {kind = "epilogue"} : () -> tensor<4x16xf32>
  %3:2 = "versa.fused"() ({
    %4 = "versa.softmax"(%0) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %5 = "versa.exp"(%4) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    "versa.yield"(%4, %5) : (tensor<4x16xf32>, tensor<4x16xf32>) -> ()
  }) {kind = "reduction"} : () -> (tensor<4x16xf32>, tensor<4x16xf32>)
  return %3#0, %3#1 : tensor<4x16xf32>, tensortensor4x16xf32>
}
