// grow.py mutated of @mlp: duplicate '256x512xf32' on line 4 -> '256x512xf32 256x512xf32'
// A two-layer MLP block in versa IR: the README's example model.
//   y = softmax(tanh(gelu(x @ w1 + b1) * s @ w2 + b2))
// Weights are arguments, so `versa-run --random` or an .npz supplies them.
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32 256x512xf32>, %b1: tensor<512xf32>,
               %s: tensor<512xf32>, %w2: tensor<512x128xf32>, %b2: tensor<128xf32>)
    -> tensor<64x128xf32> {
  %0 = "versa.matmul"(%x, %w1) : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
  %1 = "versa.add"(%0, %b1) : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  %2 = "versa.gelu"(%1) {approximate = "tanh"} : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %3 = "versa.mul"(%2, %s) : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  %4 = "versa.matmul"(%3, %w2) : (tensor<64x512xf32>, tensor<512x128xf32>) -> tensor<64x128xf32>
  %5 = "versa.add"(%4, %b2) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %6 = "versa.tanh"(%5) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %7 = "versa.softmax"(%6) {axis = 1 : i64} : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %7 : tensor<64x128xf32>
}
