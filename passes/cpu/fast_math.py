"""versa-fast-math: f32 (and f16/bf16) `math.exp`, `math.tanh`, `math.erf`, `math.log` (and, in
`approximations/trig.py`, `math.sin`, `math.cos`, `math.tan`, `math.atan`) as branch-free arith/math code.

    %y = math.exp %x : vector<16xf32>
  → range reduction, a polynomial in `math.fma`, 2^n from exponent bits (`arith.bitcast`,
    shifts), `arith.select` for the special values: no calls, so it stays vector code

`convert-math-to-libm` turns these ops into scalar libm calls (16 `expf` calls per
vector<16xf32>), which keeps softmax, sigmoid, gelu and tanh at a few percent of memory
bandwidth. Upstream's `math-polynomial-approximation` would fix that, but it is registered in
this wheel neither as a pass nor as a transform op, so the approximations are written here
(Cephes-style for exp, log and tanh; erf fitted for this pass). f32 and shaped types of f32
(vectors or tensors, any rank) are rewritten; f16 and bf16 are extended to f32
(`arith.extf`, on the whole vector), run through the same f32 code and rounded back once
(`arith.truncf`: `compute_types`), so they vectorize as f32 does; e.g. f16 exp(12) overflows
to inf in the rounding, as in PyTorch. f64 and the other math ops are left alone.
`lower-to-llvm` runs this at opt-level >= 1; opt-level 0 keeps the exact libm calls.

Functions and their maximum error against NumPy in float64, measured on every 29th f32 bit
pattern (148M inputs: all magnitudes, both signs, subnormals, inf, NaN) and on the inputs of
`test/python/test_fast_math.py` (which asserts the bound in brackets). A float32 result that
is correctly rounded is already up to 6e-8 off relatively, so most of these are 1-2 ulp:

  exp   n = round(x log2 e), r = x - n ln2 (ln2 split hi + lo), e^r = 1 + r + r^2 P5(r),
        2^n applied as two exact power-of-two factors, so overflow to inf and gradual
        underflow come out of the arithmetic. Relative error 8.4e-8 [1e-7] for normal
        results; subnormal results are rounded once from the scaled value (absolute error
        <= 1.4e-45, one subnormal ulp), or flushed to 0 if the CPU runs with FTZ/DAZ set.
        exp(x > 88.73) = inf, exp(x < -103.98) = 0, exp(+-inf) = inf / 0, exp(nan) = nan.
  log   x = m 2^e with m in [sqrt(1/2), sqrt(2)) from the exponent bits (subnormal inputs
        are scaled by 2^23 first, so they are as accurate as the rest), log(m) = t - t^2/2 +
        t^3 P8(t) with t = m - 1, plus e ln2 (split hi + lo). Relative error 8.0e-8 [1e-7].
        log(+-0) = -inf, log(x < 0) = nan, log(inf) = inf, log(nan) = nan.
  tanh  |x| < 0.625: |x| + |x|^3 P4(x^2); otherwise (1 - t) / (1 + t) with t = exp(-2|x|)
        (the exp above); the sign of x copied on. Absolute error 9.0e-8 [1.2e-7].
        tanh(+-inf) = +-1, tanh(-0) = -0, tanh(nan) = nan.
  erf   |x| P5(x^2) / Q5(x^2) for |x| < 4, at most 1; 1 from 4 on (erf rounds to 1 in f32
        there); the sign of x copied on. Absolute error 3.4e-7 [4e-7]: 6 ulp of 1, where the
        roundings of the two polynomials and the divide add up. (A polynomial below 1 and
        1 - exp(fit of log erfc) above, both evaluated and blended, reached 1.5e-7 but made
        gelu 1.7x slower: compute-bound, not memory-bound.) erf(+-inf) = +-1,
        erf(-0) = -0, erf(nan) = nan.

Sigmoid, gelu, log1p and expm1 are built from these ops (`scalar_emitters`) and speed up with
them: sigmoid 8.9e-8 absolute [1.2e-7]; gelu absolute per max(1, |x|): 2.2e-7 [2.5e-7] in the
erf form (PyTorch's CPU gelu: 3.5e-7 on a grid over [-5, 5]), 1.3e-7 [2e-7] in the tanh form;
log1p and expm1 (Kahan's forms) 1.8e-7 relative [2e-7], on every f32 input
(`test/python/test_math_ops.py`).
"""

from dataclasses import dataclass

from versa.mlir import arith, ir, math

from ..common.base import Pass, collect
from ..common.compute_types import element, in_compute_type, is_half
from .approximations import trig
from .approximations.builder import Builder

_F = arith.CmpFPredicate


# Cephes expf: e^r ~ 1 + r + r^2 P(r) on |r| <= ln2 / 2.
_EXP_P = [
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
]
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4  # ln 2 = hi + lo; hi has 9 significant bits
_LOG2E = 1.44269504088896341
_ROUND = 12582912.0  # 1.5 * 2^23: adding it rounds to an integer that sits in the low mantissa bits

# Cephes logf: log(1 + t) ~ t - t^2 / 2 + t^3 P(t) on t in [sqrt(1/2) - 1, sqrt(2) - 1].
_LOG_P = [
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
]
_SQRT_HALF = 0.707106781186547524

# Cephes tanhf: tanh(x) ~ x + x^3 P(x^2) on |x| < 0.625.
_TANH_P = [-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1]

# erf(x) = x P(x^2) / Q(x^2) on |x| <= 4, fitted for this pass (a Lawson-weighted rational least
# squares fit in float64, 2.6e-8 off before f32 rounding; the f32 arithmetic adds the rest). At 4,
# erfc is 1.5e-8: below half an ulp of 1, so erf rounds to 1 from there on.
_ERF_P = [
    1.975839950318914e-06,
    0.0002877337101381272,
    0.00399263110011816,
    0.05343347042798996,
    0.19599589705467224,
    1.128378987312317,
]
_ERF_Q = [
    3.7475732824532315e-05,
    0.0012135787401348352,
    0.015422516502439976,
    0.11637114733457565,
    0.5070281624794006,
    1.0,
]


def _exp(b: Builder, x: ir.Value) -> ir.Value:
    # Beyond [-104, 89] the result is 0 or inf anyway (also for +-inf); NaN passes the clamp.
    x = b.clamp_keep_nan(x, -104.0, 89.0)
    # n = round(x log2 e): the magic constant leaves n in the low bits of t (no fptosi, so a
    # NaN input gives garbage bits there, never poison; the polynomial carries the NaN).
    t = math.fma(x, b.f(_LOG2E), b.f(_ROUND))
    n_float = arith.subf(t, b.f(_ROUND))
    n = arith.subi(b.as_int(t), b.as_int(b.f(_ROUND)))
    r = math.fma(n_float, b.f(-_LN2_HI), x)
    r = math.fma(n_float, b.f(-_LN2_LO), r)
    p = b.horner(r, _EXP_P)
    p = arith.addf(math.fma(p, arith.mulf(r, r), r), b.f(1.0))
    # 2^n for n in [-150, 128] as 2^(n >> 1) 2^(n - (n >> 1)): both factors are normal floats,
    # so overflow gives inf and underflow rounds once into the subnormals (or to 0).
    half = arith.shrsi(n, b.i(1))
    rest = arith.subi(n, half)
    scale1 = b.as_float(arith.shli(arith.addi(half, b.i(127)), b.i(23)))
    scale2 = b.as_float(arith.shli(arith.addi(rest, b.i(127)), b.i(23)))
    return arith.mulf(arith.mulf(p, scale1), scale2)


def _log(b: Builder, x: ir.Value) -> ir.Value:
    # Subnormal inputs: scale by 2^23 so the exponent bits hold the whole exponent.
    subnormal = arith.cmpf(_F.OLT, x, b.f(1.17549435e-38))
    xs = arith.select(subnormal, arith.mulf(x, b.f(8388608.0)), x)
    bias = arith.select(subnormal, b.f(23.0), b.f(0.0))
    bits = b.as_int(xs)
    # x = m 2^e with m in [0.5, 1): e from the exponent field, m by forcing exponent 126.
    e = arith.sitofp(b.ftype, arith.subi(arith.shrui(bits, b.i(23)), b.i(126)))
    e = arith.subf(e, bias)
    m = b.as_float(arith.ori(arith.andi(bits, b.i(0x007FFFFF)), b.i(0x3F000000)))
    # m < sqrt(1/2): use 2m, e - 1, so that t = m - 1 lies in [sqrt(1/2) - 1, sqrt(2) - 1].
    low = arith.cmpf(_F.OLT, m, b.f(_SQRT_HALF))
    e = arith.subf(e, arith.select(low, b.f(1.0), b.f(0.0)))
    t = arith.subf(arith.select(low, arith.addf(m, m), m), b.f(1.0))
    t2 = arith.mulf(t, t)
    y = arith.mulf(arith.mulf(b.horner(t, _LOG_P), t), t2)
    y = math.fma(e, b.f(_LN2_LO), y)
    y = math.fma(t2, b.f(-0.5), y)
    result = math.fma(e, b.f(_LN2_HI), arith.addf(t, y))
    # Special values: +inf, 0 (either sign), negative or NaN.
    inf = b.f(float("inf"))
    result = arith.select(arith.cmpf(_F.OEQ, x, inf), inf, result)
    result = arith.select(arith.cmpf(_F.OEQ, x, b.f(0.0)), b.f(float("-inf")), result)
    return arith.select(arith.cmpf(_F.ULT, x, b.f(0.0)), b.f(float("nan")), result)


def _tanh(b: Builder, x: ir.Value) -> ir.Value:
    # tanh is odd: work on |x| and give the result the sign of x (so tanh(-0) = -0).
    a = math.absf(x)
    # Small |x|: odd polynomial. NaN goes this way and stays NaN.
    z = arith.mulf(a, a)
    small = math.fma(arith.mulf(a, z), b.horner(z, _TANH_P), a)
    # Large |x|: (1 - t) / (1 + t), t = e^(-2|x|) in (0, 0.29]; 1 for |x| = inf.
    t = _exp(b, arith.mulf(a, b.f(-2.0)))
    large = arith.divf(arith.subf(b.f(1.0), t), arith.addf(b.f(1.0), t))
    return math.copysign(arith.select(arith.cmpf(_F.OLT, a, b.f(0.625)), small, large), x)


def _erf(b: Builder, x: ir.Value) -> ir.Value:
    # One rational for every |x| < 4: 10 fma and a divide, no branches to blend. erf is odd:
    # work on |x| and give the result the sign of x (so erf(-0) = -0); a NaN passes minimumf
    # and the divide.
    a = math.absf(x)
    c = arith.minimumf(a, b.f(4.0))
    t = arith.mulf(c, c)
    y = arith.divf(arith.mulf(c, b.horner(t, _ERF_P)), b.horner(t, _ERF_Q))
    # At most 1 (a rounding may overshoot it), exactly 1 from 4 on.
    y = arith.select(arith.cmpf(_F.OGE, a, b.f(4.0)), b.f(1.0), arith.minimumf(y, b.f(1.0)))
    return math.copysign(y, x)


_REWRITES = {"math.exp": _exp, "math.log": _log, "math.tanh": _tanh, "math.erf": _erf, **trig.REWRITES}


def _rewritten(t: ir.Type) -> bool:
    if isinstance(t, ir.ShapedType) and not isinstance(t, ir.VectorType | ir.RankedTensorType):
        return False
    return isinstance(element(t), ir.F32Type) or is_half(element(t))


@dataclass(frozen=True)
class VersaFastMath(Pass):
    name = "versa-fast-math"
    summary = (
        "Rewrite f32 (f16, bf16 via f32) math.exp/log/tanh/erf/sin/cos/tan/atan as branch-free "
        "polynomials (no libm)"
    )

    def run(self, module: ir.Operation) -> None:
        for op in collect(module, lambda op: op.name in _REWRITES and _rewritten(op.results[0].type)):
            result, rewrite = op.results[0], _REWRITES[op.name]
            with ir.InsertionPoint(op), op.location:
                new = in_compute_type(lambda x, f=rewrite: f(Builder(x.type), x))(op.operands[0])
            result.replace_all_uses_with(new)
            op.erase()
