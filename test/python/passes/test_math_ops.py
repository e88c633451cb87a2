"""sin, cos, tan, atan, log1p, expm1, floor, ceil, round, trunc and sign (`dialects/ops_math.py`)
compiled and run against NumPy in float64.

Accuracy: one program computes all eleven on one array (a dense grid over [-20, 20], magnitudes
from 1e-38 to 3e38 of both signs, rotary-table angles up to 1e6, multiples of pi/2 up to 1e3
(tan's poles, sin's zeros), random bit patterns, the arguments of each op's largest error in an
exhaustive search, the special values). At opt-level 3 sin, cos, tan and atan are
`versa-fast-math` polynomials and must meet the bounds documented in `passes/fast_math_trig.py`;
at opt-level 0 they are libm calls. log1p and expm1 are Kahan's forms over exp and log at both
levels. Rounding and sign are exact everywhere.
"""

import re

import numpy as np
import pytest
from conftest import Compiled
from versa import compiler

OPS = ["sin", "cos", "tan", "atan", "log1p", "expm1", "floor", "ceil", "round", "trunc", "sign"]
# sin, cos and atan: absolute error; tan, log1p, expm1: relative. sin, cos and tan are compared
# where the reduction keeps the quadrant (|x| < 1.7e15), with FAR's bounds from 1e12 on, where
# k may be one off the nearest integer.
FAST = {"sin": 1.2e-7, "cos": 1.2e-7, "tan": 3e-7, "atan": 1.2e-7, "log1p": 2e-7, "expm1": 2e-7}
FAR = {"sin": 1.5e-7, "cos": 1.5e-7, "tan": 3.5e-7}
LIBM = {"sin": 6e-8, "cos": 6e-8, "tan": 1.2e-7, "atan": 1.2e-7, "log1p": 2.5e-7, "expm1": 2.5e-7}
RELATIVE = {"tan", "log1p", "expm1"}
NEAREST_K, EXACT_REDUCTION = 1e12, 1.7e15
# Where an exhaustive run over every f32 measured each op's largest error at opt-level 3.
WORST = [1.0300072e7, 1.6477566e15, 1.9468792e9, 1.696379e15, 6.145677e7, 1.6985451e15, 1.6956581]
WORST += [511.49112, -1.5318627e-05, 0.0010178911, -1.5318747e-05]
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -1.0, -2.0])


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    magnitudes = np.logspace(-38, np.log10(3e38), 10001)
    parts = [
        np.linspace(-20, 20, 200001),
        magnitudes,
        -magnitudes,
        rng.uniform(-1e6, 1e6, 100000),  # rotary angles: positions x inverse frequencies
        np.arange(-700, 701) * (np.pi / 2),  # tan's poles, sin's and cos's zeros
        rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        rng.uniform(-1e-6, 1e-6, 10000),  # log1p and expm1 where the naive forms cancel
        np.array(WORST),
        SPECIAL,
    ]
    return np.concatenate([p.astype(np.float32) for p in parts])


def _reference(op: str, d: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "sign":
            return np.where(np.isnan(d), 0.0, np.sign(d)) + 0.0  # torch: sign(NaN) = 0, sign(-0) = +0
        fn = {"atan": np.arctan, "round": np.rint}.get(op, getattr(np, op, None))
        return fn(d)


X = _inputs()
with np.errstate(invalid="ignore"):  # signalling NaNs among the random bit patterns
    D = X.astype(np.float64)


def _program(n: int, ops: list[str]) -> str:
    t = f"tensor<{n}xf32>"
    lines = [f'  %{i} = "versa.{op}"(%x) : ({t}) -> {t}' for i, op in enumerate(ops)]
    results = ", ".join(f"%{i}" for i in range(len(ops)))
    types = ", ".join([t] * len(ops))
    body = "\n".join(lines)
    return f"func.func @main(%x: {t}) -> ({types}) {{\n{body}\n  return {results} : {types}\n}}"


@pytest.fixture(scope="module", params=["lower-to-llvm", "lower-to-llvm{opt-level=0}"], ids=["O3", "O0"])
def results(request) -> tuple[str, list[np.ndarray]]:
    return request.param, Compiled(_program(X.size, OPS), request.param).jit(X)


@pytest.mark.parametrize("op", list(FAST))
def test_max_error(results, op: str) -> None:
    pipeline, got = results
    g = got[OPS.index(op)].astype(np.float64)
    want = _reference(op, D)
    with np.errstate(all="ignore"):
        want32 = want.astype(np.float32)
        finite = np.isfinite(want32) & (np.abs(D) < EXACT_REDUCTION)
        error = np.abs(g - want)[finite]
        if op in RELATIVE:
            error = error / np.maximum(np.abs(want[finite]), 1.17549435e-38)
    if "opt-level=0" in pipeline:
        bound = np.full(error.shape, LIBM[op])
    else:
        bound = np.where(np.abs(X[finite]) < NEAREST_K, FAST[op], FAR.get(op, FAST[op]))
    worst = np.argmax(error - bound)
    assert error[worst] <= bound[worst], f"{op}: error {error[worst]:.3g} at x = {X[finite][worst]!r}"
    # NaN exactly where NumPy's is; results that are +-inf in f32 are exactly that.
    np.testing.assert_array_equal(np.isnan(g), np.isnan(want32))
    infinite = np.isinf(want32)
    np.testing.assert_array_equal(g[infinite], want32[infinite])


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "trunc", "sign"])
def test_exact(results, op: str) -> None:
    _, got = results
    np.testing.assert_array_equal(got[OPS.index(op)], _reference(op, D).astype(np.float32))


def test_sin_and_cos_past_the_exact_reduction_stay_bounded(results) -> None:
    """Beyond 1.7e15 the quadrant is lost (PyTorch reduces exactly): still within [-1, 1]."""
    _, got = results
    big = np.isfinite(X) & (np.abs(X) >= EXACT_REDUCTION)
    for op in ("sin", "cos"):
        assert np.all(np.abs(got[OPS.index(op)][big]) <= 1.0)


@pytest.mark.parametrize("pipeline", ["lower-to-llvm", "lower-to-llvm{opt-level=0}"], ids=["O3", "O0"])
def test_special_values(pipeline: str) -> None:
    x = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -1.0, -2.7], np.float32
    )
    got = dict(zip(OPS, Compiled(_program(x.size, OPS), pipeline).jit(x), strict=True))
    nan, inf = np.nan, np.inf
    np.testing.assert_array_equal(got["sin"][:5], [0, -0.0, nan, nan, nan])
    np.testing.assert_array_equal(got["cos"][:5], [1, 1, nan, nan, nan])
    np.testing.assert_array_equal(got["tan"][:5], [0, -0.0, nan, nan, nan])
    np.testing.assert_array_equal(got["atan"][:5], np.float32([0, -0.0, np.pi / 2, -np.pi / 2, nan]))
    for op in ("sin", "tan", "atan", "log1p", "expm1", "floor", "ceil", "round", "trunc"):
        np.testing.assert_array_equal(np.signbit(got[op][:2]), [False, True], err_msg=op)
    np.testing.assert_array_equal(got["log1p"][[0, 2, 4, 11, 12]], [0, inf, nan, -inf, nan])
    np.testing.assert_array_equal(got["expm1"][[0, 2, 3, 4]], [0, inf, -1, nan])
    # round: ties to even (0.5 → 0, 1.5 → 2, 2.5 → 2, -2.5 → -2); the others toward their side.
    np.testing.assert_array_equal(got["round"][5:], [0, 2, 2, -0.0, -2, -2, -1, -3])
    np.testing.assert_array_equal(got["floor"][5:], [0, 1, 2, -1, -2, -3, -1, -3])
    np.testing.assert_array_equal(got["ceil"][5:], [1, 2, 3, -0.0, -1, -2, -1, -2])
    np.testing.assert_array_equal(got["trunc"][5:], [0, 1, 2, -0.0, -1, -2, -1, -2])
    for op in ("floor", "ceil", "round", "trunc"):
        np.testing.assert_array_equal(got[op][2:5], [inf, -inf, nan], err_msg=op)
    # sign: +0 for both zeros and for NaN (torch.sign), +-1 for the infinities.
    np.testing.assert_array_equal(got["sign"], [0, 0, 1, -1, 0, 1, 1, 1, -1, -1, -1, -1, -1])
    assert not np.signbit(got["sign"][1])


@pytest.mark.parametrize("opt_level", [0, 3], ids=["O0", "O3"])
def test_integer_sign(opt_level: int) -> None:
    t = "tensor<19xi64>"
    text = (
        f'func.func @main(%x: {t}) -> {t} {{\n  %0 = "versa.sign"(%x) : ({t}) -> {t}\n  return %0 : {t}\n}}'
    )
    x = np.array([0, 1, -1, 2**40, -(2**40), np.iinfo(np.int64).min, np.iinfo(np.int64).max, *range(-6, 6)])
    (got,) = Compiled(text, f"lower-to-llvm{{opt-level={opt_level}}}").jit(x)
    np.testing.assert_array_equal(got, np.sign(x))


FUSED = """
func.func @main(%pos: tensor<64x1xf32>, %freq: tensor<24xf32>, %x: tensor<64x24xf32>)
    -> (tensor<64x24xf32>, tensor<64x24xf32>) attributes {llvm.emit_c_interface} {
  %0:2 = "versa.fused"() ({
    %a = "versa.mul"(%pos, %freq) : (tensor<64x1xf32>, tensor<24xf32>) -> tensor<64x24xf32>
    %s = "versa.sin"(%a) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %c = "versa.cos"(%a) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %r = "versa.mul"(%s, %c) : (tensor<64x24xf32>, tensor<64x24xf32>) -> tensor<64x24xf32>
    %l = "versa.log1p"(%r) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %t = "versa.atan"(%s) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %e = "versa.expm1"(%t) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %f = "versa.floor"(%x) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %h = "versa.round"(%x) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %g = "versa.sign"(%x) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %k = "versa.add"(%e, %l) : (tensor<64x24xf32>, tensor<64x24xf32>) -> tensor<64x24xf32>
    %k2 = "versa.add"(%k, %g) : (tensor<64x24xf32>, tensor<64x24xf32>) -> tensor<64x24xf32>
    %m = "versa.tan"(%h) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    %n = "versa.mul"(%f, %m) : (tensor<64x24xf32>, tensor<64x24xf32>) -> tensor<64x24xf32>
    "versa.yield"(%k2, %n) : (tensor<64x24xf32>, tensor<64x24xf32>) -> ()
  }) {kind = "elementwise"} : () -> (tensor<64x24xf32>, tensor<64x24xf32>)
  return %0#0, %0#1 : tensor<64x24xf32>, tensor<64x24xf32>
}
"""


@pytest.mark.parametrize("opt_level", [0, 1, 3], ids=["O0", "O1", "O3"])
def test_inside_a_fused_group(opt_level: int) -> None:
    """Every op of the family in one versa.fused region (one loop nest, vector code from O1):
    a timestep embedding's angles (positions up to 63000), rounding and sign of the inputs."""
    rng = np.random.default_rng(0)
    pos = np.arange(64, dtype=np.float32).reshape(64, 1) * 1000
    freq = (10000.0 ** -(np.arange(24) / 24)).astype(np.float32)
    x = (rng.integers(-5, 6, (64, 24)) / 2 + rng.choice([0, 0.25], (64, 24))).astype(np.float32)
    got = Compiled(FUSED, f"lower-to-llvm{{opt-level={opt_level}}}").jit(pos, freq, x)
    a = (pos * freq).astype(np.float64)  # the product rounds to f32 in both
    s, c, d = np.sin(a), np.cos(a), x.astype(np.float64)
    want = [np.expm1(np.arctan(s)) + np.log1p(s * c) + np.sign(d), np.floor(d) * np.tan(np.rint(d))]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=4e-6, atol=1e-6)


def test_versa_fuse_groups_them_with_their_neighbours() -> None:
    t = "tensor<8xf32>"
    text = (
        f"func.func @main(%x: {t}, %y: {t}) -> {t} {{\n"
        f'  %0 = "versa.mul"(%x, %y) : ({t}, {t}) -> {t}\n'
        f'  %1 = "versa.sin"(%0) : ({t}) -> {t}\n'
        f'  %2 = "versa.floor"(%1) : ({t}) -> {t}\n'
        f'  %3 = "versa.sign"(%2) : ({t}) -> {t}\n'
        f"  return %3 : {t}\n}}"
    )
    fused = str(compiler.compile_text(text, "versa-fuse"))
    assert fused.count('"versa.fused"') == 1 and 'kind = "elementwise"' in fused
    region = fused[fused.index('"versa.fused"') :]
    assert all(f'"versa.{op}"' in region for op in ("mul", "sin", "floor", "sign"))


def test_no_libm_calls_in_vector_code() -> None:
    """At -O3 the trigonometric ops (and log1p/expm1 through exp and log) are vector code: no
    `sinf` per lane; at -O0 they stay libm calls (the exact baseline)."""
    n = 1 << 16
    fast = _lowered(_program(n, OPS), 3)
    assert not re.search(r"llvm\.call|llvm\.intr\.(sin|cos|tan|atan|exp|log)\b", fast)
    assert re.search(r"llvm\.intr\.fma.*vector<\d+xf64>", fast)  # the f64 reduction
    for rounding in ("floor", "ceil", "roundeven", "trunc"):  # one instruction each
        assert re.search(rf"llvm\.intr\.{rounding}.*vector<\d+xf32>", fast), rounding
    exact = _lowered(_program(n, OPS), 0)
    assert re.search(r"llvm\.intr\.sin|@sinf", exact)


def _lowered(text: str, opt_level: int) -> str:
    return str(compiler.compile_text(text, f"lower-to-llvm{{opt-level={opt_level}}}"))
