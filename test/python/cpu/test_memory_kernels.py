"""The memory-bound strategies against the NumPy reference, at every level that uses them and
with threads: transposes (2-D to 4-D, square vector tiles and shapes they do not divide),
max/avg pooling in both layouts (the window loops moved outside the vector dim), and
elementwise loop nests split across threads (rank 1 to 4, broadcasting, ragged sizes).
Data movement and max are exact; averages and elementwise math within 1e-6 relative."""

import numpy as np
import pytest
from conftest import Compiled, reference

LEVELS = [
    "lower-to-llvm{opt-level=2}",
    "lower-to-llvm{opt-level=3 threads=2}",
    "lower-to-llvm{opt-level=3 threads=3}",
]


def _t(shape: tuple[int, ...], element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _run(text: str, pipeline: str, rtol: float = 0.0) -> None:
    compiled = Compiled(text, pipeline)
    inputs = compiled.random_inputs()
    for got, want in zip(compiled.jit(*inputs), reference(text, inputs), strict=True):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        ((256, 128), (1, 0)),
        ((48, 40), (1, 0)),
        ((37, 19), (1, 0)),
        ((4, 32, 64), (0, 2, 1)),
        ((2, 16, 8, 32), (0, 3, 1, 2)),
        ((64, 3, 16), (2, 1, 0)),
        ((2, 96, 64), (0, 2, 1)),  # tiles in 32x32 blocks
        ((2, 64, 32, 96), (0, 3, 1, 2)),  # blocks on one of the two dims
    ],
    ids=str,
)
@pytest.mark.parametrize("element", ["f32", "i32"])
def test_transpose(shape: tuple[int, ...], perm: tuple[int, ...], element: str, pipeline: str) -> None:
    x, y = _t(shape, element), _t(tuple(shape[p] for p in perm), element)
    text = f"""
func.func @main(%x: {x}) -> {y} {{
  %0 = "versa.transpose"(%x) {{perm = array<i64: {", ".join(map(str, perm))}>}} : ({x}) -> {y}
  return %0 : {y}
}}"""
    _run(text, pipeline)


POOLS = [
    ("max_pool2d", "NCHW", (2, 8, 64, 64), (2, 2), (2, 2), ""),
    ("max_pool2d", "NCHW", (2, 3, 33, 31), (3, 3), (2, 2), ""),
    ("max_pool2d", "NHWC", (2, 20, 20, 16), (3, 3), (2, 2), ", padding = array<i64: 1, 1, 1, 1>"),
    ("avg_pool2d", "NCHW", (1, 16, 28, 28), (2, 2), (2, 2), ""),
    ("avg_pool2d", "NHWC", (3, 9, 9, 24), (3, 3), (1, 1), ", padding = array<i64: 1, 1, 1, 1>"),
]


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(("op", "layout", "shape", "kernel", "strides", "extra"), POOLS, ids=str)
def test_pool(op: str, layout: str, shape, kernel, strides, extra: str, pipeline: str) -> None:
    pad = 2 if extra else 0  # symmetric padding of 1
    spatial = (2, 3) if layout == "NCHW" else (1, 2)
    out = list(shape)
    for i, d in enumerate(spatial):
        out[d] = (shape[d] + pad - kernel[i]) // strides[i] + 1
    y = _t(tuple(out))
    attrs = f"kernel = array<i64: {kernel[0]}, {kernel[1]}>, strides = array<i64: {strides[0]}, {strides[1]}>"
    text = f"""
func.func @main(%x: {_t(shape)}) -> {y} {{
  %0 = "versa.{op}"(%x) {{{attrs}, layout = "{layout}"{extra}}} : ({_t(shape)}) -> {y}
  return %0 : {y}
}}"""
    _run(text, pipeline, rtol=1e-6 if op == "avg_pool2d" else 0.0)


@pytest.mark.parametrize("pipeline", LEVELS[1:])
@pytest.mark.parametrize(
    ("x", "y"),
    [
        ((70001,), (70001,)),
        ((3, 40000), (40000,)),
        ((300, 7, 33), (300, 1, 33)),
        ((2, 64, 32, 33), (64, 1, 1)),
    ],
    ids=str,
)
def test_threaded_elementwise(x: tuple[int, ...], y: tuple[int, ...], pipeline: str) -> None:
    text = f"""
func.func @main(%a: {_t(x)}, %b: {_t(y)}) -> {_t(x)} {{
  %0 = "versa.mul"(%a, %b) : ({_t(x)}, {_t(y)}) -> {_t(x)}
  %1 = "versa.sigmoid"(%0) : ({_t(x)}) -> {_t(x)}
  %2 = "versa.add"(%1, %a) : ({_t(x)}, {_t(x)}) -> {_t(x)}
  return %2 : {_t(x)}
}}"""
    _run(text, pipeline, rtol=1e-6)
