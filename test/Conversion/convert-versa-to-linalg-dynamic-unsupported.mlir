// Dynamic dims that convert-versa-to-linalg cannot lower are refused at the op, as MLIR
// reports an op's errors: `'versa.X' op ... dynamic dim ... not supported`.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --verify-diagnostics

// A scatter writes static rows (its loop carries one slice per index row): a dynamic dim in
// the updated rows is refused at the op (dynamic index rows and addressed dims are lowered).
func.func @scatter_dynamic_row(%x: tensor<4x?xf32>, %i: tensor<2x1xi64>, %u: tensor<2x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'versa.scatter' op dynamic dim in a scatter's updated rows: not supported}}
  %y = "versa.scatter"(%x, %i, %u) {reduction = "none"} : (tensor<4x?xf32>, tensor<2x1xi64>, tensor<2x?xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}
