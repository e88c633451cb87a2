"""Programs and float64 references shared by the row-kernel tests (test_row_kernels,
test_softmax_pipelined, test_softmax_aligned, test_row_kernels_half): softmax and layer_norm
over trailing axes, and a softmax with a fused producer and consumer."""

import numpy as np

# Every form of the kernels: one thread, two, and three (a chunk of rows that does not divide).
LEVELS = [
    "lower-to-llvm{opt-level=1}",
    "lower-to-llvm{opt-level=3 threads=1}",
    "lower-to-llvm{opt-level=3 threads=2}",
    "lower-to-llvm{opt-level=3 threads=3}",
]


def tensor_type(shape: tuple[int, ...], element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def softmax_text(shape: tuple[int, ...]) -> str:
    t = tensor_type(shape)
    return f"""
func.func @main(%x: {t}) -> {t} {{
  %0 = "versa.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %0 : {t}
}}"""


def layer_norm_text(shape: tuple[int, ...], axis: int = -1) -> str:
    """layer_norm over the axes from `axis` on, gamma and beta of their shape, epsilon 1e-5."""
    t, p = tensor_type(shape), tensor_type(shape[axis:])
    return f"""
func.func @main(%x: {t}, %g: {p}, %b: {p}) -> {t} {{
  %0 = "versa.layer_norm"(%x, %g, %b) {{axis = {axis} : i64, epsilon = 1.0e-05 : f32}}
      : ({t}, {p}, {p}) -> {t}
  return %0 : {t}
}}"""


def softmax_f64(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis in float64 (a row of -inf gives NaN, as the kernels do)."""
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def fused_softmax_text(shape: tuple[int, ...]) -> str:
    """softmax(x * 0.125 + mask) * bias + z: the mask read by rows mod its own, the bias as one row."""
    t, inner, row = tensor_type(shape), tensor_type(shape[1:]), tensor_type(shape[-1:])
    return f"""
func.func @main(%x: {t}, %m: {inner}, %bias: {row}, %z: {t}) -> {t} {{
  %s = "versa.constant"() {{value = dense<0.125> : tensor<f32>}} : () -> tensor<f32>
  %0 = "versa.mul"(%x, %s) : ({t}, tensor<f32>) -> {t}
  %1 = "versa.add"(%0, %m) : ({t}, {inner}) -> {t}
  %2 = "versa.softmax"(%1) {{axis = -1 : i64}} : ({t}) -> {t}
  %3 = "versa.mul"(%2, %bias) : ({t}, {row}) -> {t}
  %4 = "versa.add"(%3, %z) : ({t}, {t}) -> {t}
  return %4 : {t}
}}"""


def fused_softmax_case(shape: tuple[int, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    """Inputs of `fused_softmax_text(shape)` and its float64 result."""
    rng = np.random.default_rng(2)
    x, z = (rng.uniform(-8, 8, shape).astype(np.float32) for _ in range(2))
    m = rng.uniform(-1, 1, shape[1:]).astype(np.float32)
    bias = rng.uniform(-1, 1, shape[-1:]).astype(np.float32)
    return [x, m, bias, z], softmax_f64(x.astype(np.float64) * 0.125 + m) * bias + z
