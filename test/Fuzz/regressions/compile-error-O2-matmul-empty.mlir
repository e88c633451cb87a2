// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 2027 (program 169, generated), reduced by versa-fuzz.
// compile-error in O2, O3 and fused: pass 'versa-codegen' failed: ZeroDivisionError: integer
// division or modulo by zero (passes/codegen/matmul.py, MatmulStrategy.for_op, reached through
// the epilogue strategy here).
// Fixed: a matmul with an empty dim (N = 0 here; M = 0 and K = 0 failed too) got a strategy
// whose register tile nr = round_up(0, lanes) = 0, then divided by it. versa-codegen's
// dispatcher (passes/codegen/__init__.py, select) now gives no strategy to an op whose
// iteration space has no points; the plain loop lowering handles it (a K = 0 matmul leaves its
// zero fill). test/Transforms/versa-codegen.mlir, @empty_iteration_spaces.
func.func @main(%arg0: tensor<1x1xf16>, %arg1: tensor<1x0xf16>) -> tensor<1x0xf32> {
  %0 = "versa.matmul"(%arg0, %arg1) : (tensor<1x1xf16>, tensor<1x0xf16>) -> tensor<1x0xf16>
  %1 = "versa.cast"(%0) : (tensor<1x0xf16>) -> tensor<1x0xf32>
  return %1 : tensor<1x0xf32>
}
