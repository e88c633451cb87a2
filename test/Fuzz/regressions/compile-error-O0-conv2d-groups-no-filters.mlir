// RUN: versa-fuzz --replay %s
// Found by a hand-written zero-size probe of every op (issue 17); minimal as written.
// compile-error in every pipeline: 'linalg.generic' op inferred input/output operand #0 has
// shape's dimension #1 to be greater than or equal to <garbage> (the grouped conv's input map
// had (f floordiv 0) * C/groups + c: filters per group = 0 / 2 = 0).
// Fixed: linalg_builders.grouped_conv returns its empty init when there are no filters
// (test/Conversion/convert-versa-to-linalg.mlir, @conv2d_groups_no_filters). A map over an
// empty f loop cannot be written either: the verifier evaluates f * 2 + c at f = -1.
func.func @main(%arg0: tensor<1x4x5x5xf32>, %arg1: tensor<0x2x3x3xf32>) -> tensor<1x0x3x3xf32> {
  %0 = "versa.conv2d"(%arg0, %arg1) {groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<0x2x3x3xf32>) -> tensor<1x0x3x3xf32>
  return %0 : tensor<1x0x3x3xf32>
}
