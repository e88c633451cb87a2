// RUN: versa-fuzz --replay %s
// Found by versa-fuzz --seed 2027 (program 1296, generated), reduced by versa-fuzz.
// signal in O2: the worker died with signal SIGSEGV (also O3 and fused; channels = 0 too).
// Fixed: versa-codegen's conv2d strategy emitted a transform script for a convolution with an
// empty batch, and applying it (transform interpreter, passes/codegen/script.py run_script)
// segfaulted. The dispatcher (passes/codegen/__init__.py, select) now gives no strategy to an
// op whose iteration space has no points (test/Transforms/versa-codegen.mlir).
func.func @main(%arg0: tensor<0x2x2x1xf16>, %arg1: tensor<1x2x1x1xf16>) -> tensor<0x1x2x1xf16> {
  %0 = "versa.conv2d"(%arg0, %arg1) : (tensor<0x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<0x1x2x1xf16>
  return %0 : tensor<0x1x2x1xf16>
}
