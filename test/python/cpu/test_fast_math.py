"""versa-fast-math against NumPy in float64, over the whole f32 range.

One program computes exp, log, tanh, erf, sigmoid and gelu (both forms) of one input array:
magnitudes from 1e-38 to 3e38 of both signs, a few hundred floats either side of every
threshold (overflow, underflow to subnormals and to 0, FLT_MIN, the polynomial switch-overs),
random bit patterns (subnormals and NaNs included), a dense grid over [-20, 20], and the special
values. At opt-level 3 the approximations must meet the bounds documented in
`passes/fast_math.py`; at opt-level 0 (libm calls) the results must be as good as libm's.
"""

import math

import numpy as np
import pytest
from conftest import Compiled

FLT_MIN = 1.17549435e-38
SUBNORMAL_ULP = 1.401298464e-45
OPS = [
    ("exp", ""),
    ("log", ""),
    ("tanh", ""),
    ("erf", ""),
    ("sigmoid", ""),
    ("gelu", ""),
    ("gelu", ' {approximate = "tanh"}'),
]
# Maximum error: relative (exp, log; normal results), absolute (tanh, erf, sigmoid), absolute
# over max(1, |x|) (gelu). Fast: the documented bounds; libm: what the exact calls reach.
FAST = [1.0e-7, 1.0e-7, 1.2e-7, 4.0e-7, 1.2e-7, 2.5e-7, 2.0e-7]
LIBM = [6.5e-8, 8.0e-8, 1.2e-7, 1.2e-7, 1.2e-7, 2.0e-7, 2.0e-7]
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1e-45, -1e-45], np.float32)
THRESHOLDS = [88.72283, 87.33655, 103.27893, 103.97208, 0.625, 1.0, 4.0, FLT_MIN, 0.70710678]


def _inputs() -> np.ndarray:
    magnitudes = np.logspace(-38, np.log10(3e38), 10001)
    parts = [magnitudes, -magnitudes, np.linspace(-20, 20, 200001)]
    steps = np.arange(-300, 301)
    for t in THRESHOLDS:
        bits = np.float32(t).view(np.int32) + steps
        parts += [bits.astype(np.int32).view(np.float32), -bits.astype(np.int32).view(np.float32)]
    rng = np.random.default_rng(0)
    parts.append(rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32))
    parts.append(SPECIAL)
    return np.concatenate([p.astype(np.float32) for p in parts])


def _references(x: np.ndarray) -> list[np.ndarray]:
    erf = np.vectorize(math.erf, otypes=[np.float64])
    with np.errstate(all="ignore"):  # signalling NaNs among the random bit patterns
        d = x.astype(np.float64)
        return [
            np.exp(d),
            np.log(d),
            np.tanh(d),
            erf(d),
            1.0 / (1.0 + np.exp(-d)),
            0.5 * d * (1.0 + erf(d / math.sqrt(2.0))),
            0.5 * d * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (d + 0.044715 * d**3))),
        ]


X = _inputs()
REFERENCES = _references(X)


def _program(n: int) -> str:
    t = f"tensor<{n}xf32>"
    lines = [f'  %{i} = "versa.{op}"(%x){attr} : ({t}) -> {t}' for i, (op, attr) in enumerate(OPS)]
    results = ", ".join(f"%{i}" for i in range(len(OPS)))
    types = ", ".join([t] * len(OPS))
    body = "\n".join(lines)
    return f"func.func @main(%x: {t}) -> ({types}) {{\n{body}\n  return {results} : {types}\n}}"


def _max_error(op: str, x: np.ndarray, got: np.ndarray, want: np.ndarray) -> float:
    """The error measure of `op` over the inputs whose result is finite."""
    finite = np.isfinite(want.astype(np.float32))
    error = np.abs(got.astype(np.float64) - want)[finite]
    if op in ("exp", "log"):
        normal = np.abs(want[finite]) >= FLT_MIN
        subnormal = error[~normal]
        assert subnormal.size == 0 or subnormal.max() <= SUBNORMAL_ULP, f"{op}: subnormal result off"
        return float(np.max(error[normal] / np.abs(want[finite][normal])))
    if op == "gelu":
        return float(np.max(error / np.maximum(1.0, np.abs(x[finite].astype(np.float64)))))
    return float(np.max(error))


@pytest.fixture(scope="module", params=["lower-to-llvm", "lower-to-llvm{opt-level=0}"], ids=["O3", "O0"])
def results(request) -> tuple[str, list[np.ndarray]]:
    return request.param, Compiled(_program(X.size), request.param).jit(X)


@pytest.mark.parametrize("index", range(len(OPS)), ids=[op + ("_tanh" if attr else "") for op, attr in OPS])
def test_max_error(results, index: int) -> None:
    pipeline, got = results
    op = OPS[index][0]
    bound = (LIBM if "opt-level=0" in pipeline else FAST)[index]
    with np.errstate(all="ignore"):
        error = _max_error(op, X, got[index], REFERENCES[index])
        want32 = REFERENCES[index].astype(np.float32)
    assert error <= bound, f"{op}: max error {error:.3g} > {bound:.3g}"
    # Results that round to +-inf in f32 (exp overflow) are exactly that; NaN where NumPy's is.
    overflow = np.isinf(want32)
    np.testing.assert_array_equal(got[index][overflow], want32[overflow])
    np.testing.assert_array_equal(np.isnan(got[index]), np.isnan(want32))


@pytest.mark.parametrize("pipeline", ["lower-to-llvm", "lower-to-llvm{opt-level=0}"], ids=["O3", "O0"])
def test_special_values(pipeline: str) -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 89.0, -104.0], np.float32)
    exp, log, tanh, erf, sigmoid, gelu, gelu_tanh = Compiled(_program(x.size), pipeline).jit(x)
    nan = np.nan
    inf = np.inf
    np.testing.assert_array_equal(exp[[0, 1, 2, 3, 4, 6, 7]], [1, 1, inf, 0, nan, inf, 0])
    np.testing.assert_array_equal(log[:6], [-inf, -inf, inf, nan, nan, nan])
    np.testing.assert_array_equal(tanh[:5], [0, -0.0, 1, -1, nan])
    np.testing.assert_array_equal(np.signbit(tanh[:2]), [False, True])
    np.testing.assert_array_equal(erf[:5], [0, -0.0, 1, -1, nan])
    np.testing.assert_array_equal(np.signbit(erf[:2]), [False, True])
    np.testing.assert_array_equal(sigmoid[:5], [0.5, 0.5, 1, 0, nan])
    for g in (gelu, gelu_tanh):
        np.testing.assert_array_equal(g[:5], [0, 0, inf, nan, nan])
