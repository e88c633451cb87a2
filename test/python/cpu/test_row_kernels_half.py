"""softmax and layer_norm row kernels on f16 and bf16: rows read as half vectors, extended to
f32, computed (and summed) in f32, rounded once on store, as PyTorch does. Against NumPy in
float64 on the half inputs: within the f32 kernels' tolerance (test_row_kernels.py: 2e-6
relative, 1e-7 absolute for softmax and 1e-6 for layer_norm) plus half a unit of the half type.
Both softmax forms (software-pipelined, and three-pass with aligned rows, where a half output
recomputes exp instead of rounding it twice), ragged rows and rows shorter than a vector, -inf
entries and rows, f16's largest values and inf, layer_norm of constant rows (exactly beta),
opt-levels 0 to 3 and threads 1 and 2. bf16 has no NumPy type: the programs cast from and to
f32 around the op (x86's f32 → bf16 conversion flushes subnormals: inputs stay normal)."""

import numpy as np
import pytest
import row_programs
import versa.passes.cpu.row_kernels as row_kernels
from conftest import Compiled
from row_programs import softmax_f64, tensor_type
from versa import targets

V = targets.resolve("host").lanes(32)
LEVELS = ["lower-to-llvm{opt-level=0}", *row_programs.LEVELS[:3]]
SHAPES = [(7,), (3, 16), (V + 1, 3 * V + 1), (5, 1000), (2, 3, 37), (130, 64)]
HALVES = ["f16", "bf16"]


def _program(kind: str, shape: tuple[int, ...], half: str, axis: int = -1) -> str:
    """softmax (last axis) or layer_norm (from `axis` on) in `half`; bf16 through f32 casts."""
    outer = "f16" if half == "f16" else "f32"
    params = [("x", shape)] + ([("g", shape[axis:]), ("b", shape[axis:])] if kind == "layer_norm" else [])
    lines, names = [], []
    for name, s in params:
        names.append(f"%{name}")
        if half == "bf16":
            lines.append(
                f'  %{name}h = "versa.cast"(%{name}) : ({tensor_type(s, outer)}) -> {tensor_type(s, half)}'
            )
            names[-1] = f"%{name}h"
    types = ", ".join(tensor_type(s, half) for _, s in params)
    t, attrs = tensor_type(shape, half), f"axis = {axis} : i64"
    if kind == "layer_norm":
        attrs += ", epsilon = 1.0e-05 : f32"
    lines.append(f'  %y = "versa.{kind}"({", ".join(names)}) {{{attrs}}} : ({types}) -> {t}')
    result = "%y"
    if half == "bf16":
        lines.append(f'  %yc = "versa.cast"(%y) : ({t}) -> {tensor_type(shape, outer)}')
        result = "%yc"
    args = ", ".join(f"%{name}: {tensor_type(s, outer)}" for name, s in params)
    body, out = "\n".join(lines), tensor_type(shape, outer)
    return f"func.func @main({args}) -> {out} {{\n{body}\n  return {result} : {out}\n}}"


def _as_half(x: np.ndarray, half: str) -> np.ndarray:
    """`x` rounded to `half`, as the array the program takes (f16, or bf16 values in f32)."""
    if half == "f16":
        return x.astype(np.float16)
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)


def _check(got: np.ndarray, want: np.ndarray, half: str, atol: float) -> None:
    got = got.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    if half == "f16":
        ulp = np.spacing(np.abs(want[finite]).astype(np.float16)).astype(np.float64)
    else:
        ulp = np.spacing(np.abs(want[finite]).astype(np.float32)).astype(np.float64) * 2.0**16
    bound = 2e-6 * np.abs(want[finite]) + atol + 0.5 * ulp
    error = np.abs(got[finite] - want[finite])
    assert np.all(error <= bound), f"max excess {np.max(error - bound):.3g}"


def _layer_norm_f64(x: np.ndarray, g: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    x, g, b = (v.astype(np.float64) for v in (x, g, b))
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * g + b


@pytest.fixture(params=["pipelined", "three_pass"])
def form(request, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "three_pass":
        monkeypatch.setattr(row_kernels, "pipelines", lambda *args: False)
    return request.param


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_softmax(shape: tuple[int, ...], pipeline: str, half: str, form: str) -> None:
    x = _as_half(np.random.default_rng(1).normal(0, 4, shape), half)
    (got,) = Compiled(_program("softmax", shape, half), pipeline).jit(x)
    _check(got, softmax_f64(x), half, 1e-7)


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("pipeline", LEVELS)
def test_softmax_edges(pipeline: str, half: str, form: str) -> None:
    """-inf entries are exactly 0, a row of -inf and a row with +inf are NaN; f16's largest
    values (x - max would overflow f16: computed in f32); a row's exps under f16's smallest."""
    x = np.random.default_rng(0).standard_normal((6, 2 * V + 5))
    x[0, ::3] = -np.inf
    x[1, :] = -np.inf
    x[2, -1] = -np.inf  # in the ragged tail
    x[3, ::2], x[3, 1::2] = 65504.0, -65504.0
    x[4, 5] = np.inf
    x[5] *= 30.0  # most probabilities far below f16's subnormals: 0
    x = _as_half(x, half)
    (got,) = Compiled(_program("softmax", x.shape, half), pipeline).jit(x)
    with np.errstate(invalid="ignore", over="ignore"):
        want = softmax_f64(x)
    _check(got, want, half, 1e-7)
    np.testing.assert_array_equal(got[0, ::3], 0.0)


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize(
    ("shape", "axis"), [((7,), 0), ((5, 1000), 1), ((2, 3, 37), 1), ((V + 1, 3 * V + 1), 1)]
)
def test_layer_norm(shape: tuple[int, ...], axis: int, pipeline: str, half: str) -> None:
    rng = np.random.default_rng(3)
    x = _as_half(rng.normal(100.0, 3.0, shape), half)  # a mean far from 0: x - mean in f32
    g, b = (_as_half(rng.standard_normal(shape[axis:]), half) for _ in range(2))
    (got,) = Compiled(_program("layer_norm", shape, half, axis), pipeline).jit(x, g, b)
    _check(got, _layer_norm_f64(x, g, b, axis), half, 1e-6 * 16)  # 1/std (~1/3) of x's rounding


@pytest.mark.parametrize("half", HALVES)
@pytest.mark.parametrize("pipeline", LEVELS[1:])
@pytest.mark.parametrize("length", [7, 27, 768])
def test_layer_norm_of_a_constant_row_is_beta(length: int, pipeline: str, half: str) -> None:
    x = _as_half(np.array([[0.1] * length, [-3.7] * length, [6e4] * length]), half)
    rng = np.random.default_rng(0)
    g, b = (_as_half(rng.standard_normal(length), half) for _ in range(2))
    (got,) = Compiled(_program("layer_norm", x.shape, half, 1), pipeline).jit(x, g, b)
    np.testing.assert_array_equal(got, np.broadcast_to(b, x.shape))
