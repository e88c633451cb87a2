// Dynamic dims that convert-versa-to-linalg cannot lower are refused at the op, as MLIR
// reports an op's errors: `'versa.X' op ... dynamic dim ... not supported`.
// RUN: versa-opt %s --split-input-file --convert-versa-to-linalg --verify-diagnostics

// A pool's windows are cut into blocks by H and W: a dynamic H or W is refused at the op.
func.func @pool_dynamic_h(%x: tensor<1x4x?x8xf32>) -> tensor<1x4x?x4xf32> {
  // expected-error @+1 {{'versa.max_pool2d' op dynamic dim H or W of a pool: not supported}}
  %y = "versa.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x4x?x8xf32>) -> tensor<1x4x?x4xf32>
  return %y : tensor<1x4x?x4xf32>
}
