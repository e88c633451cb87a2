// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 7 (program 904, mutant of corpus program 104; reduced by versa-fuzz
// to this with strides 3x3), and in a campaign on zero-size probes (a 1x1x0x1 input padded to 2
// rows); no empty tensor is needed.
// compile-error in O2, O3 and fused: pass 'versa-codegen' failed: expected type to be
// 'tensor<1x2x1x1xf32>' or a rank-reduced version. (size mismatch) (a tensor.extract_slice of
// the conv2d strategy's 2-D → 1-D decomposition).
// Fixed (lower_conv2d crops the input rows and columns no window reads, linalg_builders.
// crop_spatial). It was: the output has one row (OH = 1) but the stride skips the input's second row (H = 2,
// KH = 1). passes/codegen/conv.py tiles oh only where the extent exceeds the tile (`needed`
// gives 0 for OH = 1), so `transform.structured.decompose` meets an input slice of 2 rows
// where it drops the H dim as a unit dim. Either tile oh to 1 regardless, or crop the unread
// input rows ((OH - 1) * stride + (KH - 1) * dilation + 1 of them are read) before decomposing.
func.func @main(%arg0: tensor<1x1x2x1xf32>, %arg1: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  %0 = "versa.conv2d"(%arg0, %arg1) {strides = array<i64: 2, 1>} : (tensor<1x1x2x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}
