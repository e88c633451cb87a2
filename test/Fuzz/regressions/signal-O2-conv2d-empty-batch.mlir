// RUN: versa-fuzz --replay %s
// XFAIL: *
// Found by versa-fuzz --seed 2027 (program 1296, generated), reduced by versa-fuzz.
// signal in O2: the worker died with signal SIGSEGV (also O3 and fused; channels = 0 too).
// Open: versa-codegen's conv2d strategy emits a transform script for a convolution with an
// empty batch, and applying it (transform interpreter, passes/codegen/script.py run_script)
// segfaults. An op with no elements needs no strategy.
func.func @main(%arg0: tensor<0x2x2x1xf16>, %arg1: tensor<1x2x1x1xf16>) -> tensor<0x1x2x1xf16> {
  %0 = "versa.conv2d"(%arg0, %arg1) : (tensor<0x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<0x1x2x1xf16>
  return %0 : tensor<0x1x2x1xf16>
}
