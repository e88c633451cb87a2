// Dynamic dims that convert-versa-to-linalg cannot lower are refused at the op, as MLIR
// reports an op's errors: `'versa.X' op ... dynamic dim ... not supported`.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --verify-diagnostics

// A conv_transpose2d's phases are cut at static rows and columns: a dynamic H or W is
// refused at the op (a dynamic batch is lowered).
func.func @conv_transpose_dynamic_h(%x: tensor<1x8x?x5xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x?x10xf32> {
  // expected-error @+1 {{'versa.conv_transpose2d' op dynamic dim H or W of a conv_transpose2d: not supported}}
  %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x?x5xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x?x10xf32>
  return %y : tensor<1x4x?x10xf32>
}
