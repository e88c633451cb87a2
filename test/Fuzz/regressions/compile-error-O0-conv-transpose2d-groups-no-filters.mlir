// RUN: versa-fuzz --replay %s
// Found by a hand-written zero-size probe of every op (issue 17); minimal as written.
// compile-error in every pipeline: 'linalg.generic' op ... (the flipped filter's map
// (f floordiv F/groups) * C/groups + c, f mod F/groups with F/groups = 0), then the grouped
// conv2d it lowers to had the same division by 0.
// Fixed: lower_indexing._flipped_filter returns a bare tensor.empty when there are no filters,
// and the grouped conv its empty init. Since the sub-pixel lowering (lower_conv_transpose), a
// result without elements is a fill (test/Conversion/convert-versa-to-linalg-conv-transpose.mlir,
// @conv_transpose2d_no_filters).
func.func @main(%arg0: tensor<1x4x5x5xf32>, %arg1: tensor<4x0x3x3xf32>) -> tensor<1x0x7x7xf32> {
  %0 = "versa.conv_transpose2d"(%arg0, %arg1) {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x0x3x3xf32>) -> tensor<1x0x7x7xf32>
  return %0 : tensor<1x0x7x7xf32>
}
