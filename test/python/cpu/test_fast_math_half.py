"""f16 and bf16 exp, log, tanh, erf, sigmoid and gelu: computed in f32 and rounded once
(`passes/compute_types.py`), so at every opt-level each result is within the f32 bound of
`passes/fast_math.py` (libm's at opt-level 0) plus half a unit of the half type of the float64
result. Exhaustive: every f16 and every bf16 bit pattern (NaNs, infinities, subnormals, the
f16 overflow of exp past 11.09 to inf), as one vector with a tail, and short lengths whose
results must equal the long run's (tails and full vectors compute alike). bf16 has no NumPy
type: it is cast from and to f32 inside the program, on values it holds exactly; x86's f32 →
bf16 conversion (`vcvtneps2bf16`) flushes subnormals to 0, so bf16's subnormal inputs are left
out and its results below FLT_MIN may be 0."""

import numpy as np
import pytest
from conftest import Compiled
from test_fast_math import _references  # the float64 reference of each op, in OPS order

FLT_MIN = 1.17549435e-38
OPS = [("exp", ""), ("log", ""), ("tanh", ""), ("erf", ""), ("sigmoid", ""), ("gelu", "")]
OPS += [("gelu", ' {approximate = "tanh"}')]
F32_BOUND = [1.0e-7, 1.0e-7, 1.2e-7, 4.0e-7, 1.2e-7, 2.5e-7, 2.0e-7]  # fast_math.py's (relative
# for exp and log, absolute for tanh, erf and sigmoid, per max(1, |x|) for gelu)
PIPELINES = {
    "O0": "lower-to-llvm{opt-level=0}",
    "O1": "lower-to-llvm{opt-level=1}",
    "O3_t1": "lower-to-llvm{opt-level=3 threads=1}",
    "O3_t2": "lower-to-llvm{opt-level=3 threads=2}",
}


def _program(n: int, half: str) -> str:
    """Each op of one input; bf16 in and out through f32 (casts inside)."""
    outer = "f16" if half == "f16" else "f32"
    t, h = f"tensor<{n}x{outer}>", f"tensor<{n}x{half}>"
    lines, x = [], "%x"
    if half == "bf16":
        lines.append(f'  %x16 = "versa.cast"(%x) : ({t}) -> ({h})')
        x = "%x16"
    results = []
    for i, (op, attr) in enumerate(OPS):
        lines.append(f'  %{i} = "versa.{op}"({x}){attr} : ({h}) -> {h}')
        results.append(f"%{i}")
        if half == "bf16":
            lines.append(f'  %c{i} = "versa.cast"(%{i}) : ({h}) -> {t}')
            results[-1] = f"%c{i}"
    types = ", ".join([t] * len(OPS))
    body = "\n".join(lines)
    return f"func.func @main(%x: {t}) -> ({types}) {{\n{body}\n  return {', '.join(results)} : {types}\n}}"


def _every(half: str) -> np.ndarray:
    """Every bit pattern of `half` (as f16, or as the f32 values of bf16, subnormals left
    out), plus 7 for a tail."""
    bits = np.arange(2**16 + 7, dtype=np.uint32) % 2**16
    if half == "f16":
        return bits.astype(np.uint16).view(np.float16)
    return (bits[(bits & 0x7F80 != 0) | (bits & 0x7F == 0)] << 16).view(np.float32)


def _spacing(values: np.ndarray, half: str) -> np.ndarray:
    """The unit in the last place of each value in `half` (NaN where it is not finite)."""
    values = np.where(np.isfinite(values), values, np.nan)
    if half == "f16":
        return np.spacing(np.abs(values.astype(np.float16))).astype(np.float64)
    return np.spacing(np.abs(values.astype(np.float32))).astype(np.float64) * 2.0**16


def _round(want: np.ndarray, half: str) -> np.ndarray:
    """float64 → `half`, as float64 (inf where it overflows)."""
    with np.errstate(all="ignore"):
        if half == "f16":
            return want.astype(np.float16).astype(np.float64)
        f32 = want.astype(np.float32)  # then round-to-nearest-even on the low 16 bits
        bits = f32.view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
        out = rounded.view(np.float32).astype(np.float64)
        return np.where(np.isnan(f32), np.nan, out)


@pytest.fixture(scope="module", params=["f16", "bf16"])
def half(request) -> str:
    return request.param


@pytest.fixture(scope="module", params=list(PIPELINES))
def results(request, half: str) -> tuple[str, np.ndarray, list[np.ndarray]]:
    x = _every(half)
    return request.param, x, Compiled(_program(x.size, half), PIPELINES[request.param]).jit(x)


@pytest.mark.parametrize("index", range(len(OPS)), ids=[op + ("_tanh" if a else "") for op, a in OPS])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN and inf inputs in the references
def test_every_half_value(results, half: str, index: int) -> None:
    level, x, got = results
    op, want = OPS[index][0], _references(x)[index]
    rounded = _round(want, half)
    got64 = got[index].astype(np.float64)
    # NaN exactly where the reference is; overflow to inf (f16 exp past 11.09) exactly there.
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(rounded), err_msg=f"{op} NaNs")
    infinite = np.isinf(rounded)
    np.testing.assert_array_equal(got64[infinite], rounded[infinite], err_msg=f"{op} infinities")
    finite = np.isfinite(rounded)
    scale = {"exp": np.abs(want), "log": np.abs(want), "gelu": np.maximum(1.0, np.abs(x.astype(float)))}
    f32_error = F32_BOUND[index] * scale.get(op, np.ones_like(want))
    with np.errstate(invalid="ignore"):  # inf - inf where both overflow
        ulp = np.maximum(_spacing(rounded, half), _spacing(got64, half))
        bound = f32_error + 0.5 * ulp
        if half == "bf16":  # flushed to 0 (module docstring)
            bound = np.where(np.abs(rounded) < FLT_MIN, np.maximum(bound, FLT_MIN), bound)
        bound = bound[finite]
        error = np.abs(got64 - want)[finite]
    worst = np.argmax(error - bound)
    assert np.all(error <= bound), f"{op} {level}: x={x[finite][worst]} got {got64[finite][worst]}"


@pytest.mark.parametrize("n", [1, 15, 17, 33])
def test_tails_match_full_vectors(half: str, n: int) -> None:
    """Lengths below, between and above whole vectors give the long run's values bit for bit."""
    x = _every(half)[np.random.default_rng(n).integers(0, 2**16, n)]
    long = Compiled(_program(x.size * 3, half), PIPELINES["O3_t1"]).jit(np.tile(x, 3))
    short = Compiled(_program(x.size, half), PIPELINES["O3_t1"]).jit(x)
    for a, b in zip(short, long, strict=True):
        np.testing.assert_array_equal(a, b[: x.size])


def test_f16_exp_overflows_to_inf_like_torch() -> None:
    x = np.array([11.0, 11.08, 11.1, 12.0, 100.0, np.inf, -np.inf, np.nan, -20.0], np.float16)
    got = Compiled(_program(x.size, "f16"), PIPELINES["O3_t1"]).jit(x)[0]
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(got, want)
    assert np.isinf(got[3]) and got[8] == np.float16(np.exp(-20.0))
