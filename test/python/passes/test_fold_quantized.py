"""The QDQ fold (passes/optimize/rules/fold_quantized.py) on ONNX's form, quantize(v, s, zp),
which the PT2E tests (frontends/torch/test_torch_pt2e.py) do not reach: a conv with weights
quantized per tensor, a per-channel bias and a clamp to [0, 6] (ReLU6: requantize's bounds), and
a matmul whose weights are [K, N] with scales along N, into an i8 result. Folded and unfolded
programs run in the NumPy reference.

Tolerance: one quantization step, on at most 2% of the elements (the bias is rounded to the
accumulator's unit sx * sw; the float program rounds each product instead).
"""

import numpy as np
from versa import compiler
from versa.context import make_context
from versa.passes.optimize.rules.fold_quantized import fold_quantized
from versa.reference import interpret
from versa.signature import find_function

RNG = np.random.default_rng(47)
W_CONV = RNG.integers(-128, 128, (6, 3, 3, 3)).astype(np.int8)
W_MATMUL = RNG.integers(-128, 128, (16, 5)).astype(np.int8)
SW_CONV = np.float32(0.005)  # per tensor
SW_MATMUL = RNG.uniform(0.002, 0.004, 5).astype(np.float32)
BIAS_CONV = RNG.uniform(-0.5, 0.5, (1, 6, 1, 1)).astype(np.float32)
BIAS_MATMUL = RNG.uniform(-0.5, 0.5, 5).astype(np.float32)


def _dense(array: np.ndarray, element: str) -> str:
    shape = "x".join(map(str, array.shape))
    return f"dense<{array.tolist()}> : tensor<{shape}{'x' if shape else ''}{element}>"


PROGRAM = f"""
func.func @main(%x: tensor<2x3x7x7xf32>, %v: tensor<4x16xf32>) -> (tensor<2x6x7x7xui8>, tensor<4x5xi8>) {{
  %sx = "versa.constant"() {{value = dense<0.03> : tensor<f32>}} : () -> tensor<f32>
  %zx = "versa.constant"() {{value = dense<120> : tensor<ui8>}} : () -> tensor<ui8>
  %xq = "versa.quantize"(%x, %sx, %zx)
      : (tensor<2x3x7x7xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3x7x7xui8>
  %xd = "versa.dequantize"(%xq, %sx, %zx)
      : (tensor<2x3x7x7xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3x7x7xf32>
  %w = "versa.constant"() {{value = {_dense(W_CONV, "i8")}}} : () -> tensor<6x3x3x3xi8>
  %sw = "versa.constant"() {{value = dense<{SW_CONV}> : tensor<f32>}} : () -> tensor<f32>
  %zw = "versa.constant"() {{value = dense<0> : tensor<i8>}} : () -> tensor<i8>
  %wd = "versa.dequantize"(%w, %sw, %zw)
      : (tensor<6x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<6x3x3x3xf32>
  %c = "versa.conv2d"(%xd, %wd) {{padding = array<i64: 1, 1, 1, 1>}}
      : (tensor<2x3x7x7xf32>, tensor<6x3x3x3xf32>) -> tensor<2x6x7x7xf32>
  %b = "versa.constant"() {{value = {_dense(BIAS_CONV, "f32")}}} : () -> tensor<1x6x1x1xf32>
  %cb = "versa.add"(%c, %b) : (tensor<2x6x7x7xf32>, tensor<1x6x1x1xf32>) -> tensor<2x6x7x7xf32>
  %r = "versa.clamp"(%cb) {{min = 0.0 : f32, max = 6.0 : f32}} : (tensor<2x6x7x7xf32>) -> tensor<2x6x7x7xf32>
  %so = "versa.constant"() {{value = dense<0.07> : tensor<f32>}} : () -> tensor<f32>
  %zo = "versa.constant"() {{value = dense<10> : tensor<ui8>}} : () -> tensor<ui8>
  %y = "versa.quantize"(%r, %so, %zo) : (tensor<2x6x7x7xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x6x7x7xui8>
  %vq = "versa.quantize"(%v, %sx, %zx) : (tensor<4x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x16xui8>
  %vd = "versa.dequantize"(%vq, %sx, %zx) : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %m = "versa.constant"() {{value = {_dense(W_MATMUL, "i8")}}} : () -> tensor<16x5xi8>
  %sm = "versa.constant"() {{value = {_dense(SW_MATMUL, "f32")}}} : () -> tensor<5xf32>
  %zm = "versa.constant"() {{value = dense<0> : tensor<5xi8>}} : () -> tensor<5xi8>
  %md = "versa.dequantize"(%m, %sm, %zm) {{axis = 1 : i64}}
      : (tensor<16x5xi8>, tensor<5xf32>, tensor<5xi8>) -> tensor<16x5xf32>
  %p = "versa.matmul"(%vd, %md) : (tensor<4x16xf32>, tensor<16x5xf32>) -> tensor<4x5xf32>
  %bm = "versa.constant"() {{value = {_dense(BIAS_MATMUL, "f32")}}} : () -> tensor<5xf32>
  %pb = "versa.add"(%bm, %p) : (tensor<5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %s2 = "versa.constant"() {{value = dense<0.01> : tensor<f32>}} : () -> tensor<f32>
  %z2 = "versa.constant"() {{value = dense<-3> : tensor<i8>}} : () -> tensor<i8>
  %u = "versa.quantize"(%pb, %s2, %z2) : (tensor<4x5xf32>, tensor<f32>, tensor<i8>) -> tensor<4x5xi8>
  return %y, %u : tensor<2x6x7x7xui8>, tensor<4x5xi8>
}}
"""


def test_onnx_form_folds_into_integer_contractions_within_one_step():
    inputs = [
        RNG.standard_normal((2, 3, 7, 7)).astype(np.float32) * 2,
        RNG.standard_normal((4, 16)).astype(np.float32),
    ]
    unfolded = compiler.parse_module(compiler.Chunk(PROGRAM, 1), make_context())
    folded = compiler.parse_module(compiler.Chunk(PROGRAM, 1), make_context())
    fold_quantized(folded.operation)
    text = str(folded)
    for op in ("qconv2d", "qmatmul"):
        assert text.count(f'"versa.{op}"') == 1
    assert '"versa.conv2d"' not in text and '"versa.matmul"' not in text
    assert "max = 96 : i64, min = 10 : i64" in text  # clamp [0, 6] at 1/0.07: rint(85.7) + 10
    want = interpret(find_function(unfolded, "main"), inputs)
    got = interpret(find_function(folded, "main"), inputs)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and len(np.unique(w)) > 10
        steps = np.abs(g.astype(np.int32) - w.astype(np.int32))
        assert steps.max() <= 1 and np.count_nonzero(steps) <= 0.02 * steps.size
    assert want[0].min() == 10 and want[0].max() == 96  # the bounds were reached
