// RUN: versa-fuzz --replay %s
// XFAIL: *
// Found by versa-fuzz --seed 2027 (program 169, generated), reduced by versa-fuzz.
// compile-error in O2, O3 and fused: pass 'versa-codegen' failed: ZeroDivisionError: integer
// division or modulo by zero (passes/codegen/matmul.py, MatmulStrategy.for_op, reached through
// the epilogue strategy here).
// Open: a matmul with an empty dim (N = 0 here; M = 0 and K = 0 fail too) gets a strategy whose
// register tile nr = round_up(0, lanes) = 0, then divides by it. An op with no elements needs
// no strategy: versa-codegen should leave it to the default lowering.
func.func @main(%arg0: tensor<1x1xf16>, %arg1: tensor<1x0xf16>) -> tensor<1x0xf32> {
  %0 = "versa.matmul"(%arg0, %arg1) : (tensor<1x1xf16>, tensor<1x0xf16>) -> tensor<1x0xf16>
  %1 = "versa.cast"(%0) : (tensor<1x0xf16>) -> tensor<1x0xf32>
  return %1 : tensor<1x0xf32>
}
