"""versa-fast-math's trigonometry: f32 `math.sin`, `math.cos`, `math.tan`, `math.atan` as
branch-free vector code (no libm calls), for `fast_math.py`'s rewrite table.

Written by hand because upstream's patterns cannot be used: `math-polynomial-approximation`
(SinAndCosApproximation, AtanApproximation) is not in this wheel, `convert-math-to-llvm` makes a
vector sin one scalar `sinf` call per lane, and upstream's sin/cos reduce in f32 with pi/2 as one
f32 constant, |x| 4e-8 off (4e-5 at x = 1e3): too coarse for the angles of rotary tables and
timestep embeddings (positions times frequencies, 1e5 and more in long contexts).

Maximum errors against NumPy in float64, measured on every f32 input (negative ones mirror the
positive: the code works on |x|); `test/python/test_math_ops.py` asserts the bounds in brackets
on the worst inputs and a wide sample:

  sin, cos  k = round(|x| 2/pi) and r = |x| - k pi/2 in f64 (pi/2 split in two doubles, both
            products in fma: r is within 1e-16 of the exact remainder). Rounded to f32, r feeds
            Cephes' sinf and cosf polynomials (both computed; the quadrant k mod 4 picks one
            and its sign); sin takes the sign of x (sin(-0) = -0). Absolute error 9.4e-8
            [1.2e-7] for |x| < 1e12. Above, k (with 2/pi 3.9e-17 high in f64) can be one off
            the nearest integer, and |r| exceed pi/4 by up to 6.2e-17 |x|: 1.4e-7 [1.5e-7] up
            to 1.7e15. From there on the rounding trick loses the quadrant: results stay in
            [-1, 1] but are not sin(x) (every f32 there is a multiple of 2^27; PyTorch's SLEEF
            reduces exactly). sin/cos(+-inf) and NaN are NaN.
  tan       The same reduction; sin(r) / cos(r) in even quadrants, -cos(r) / sin(r) in odd ones,
            one divide. Relative error 2.5e-7 [3e-7] below 1e12 (poles included: r keeps its
            relative accuracy), 3.3e-7 [3.5e-7] up to 1.7e15. tan(-0) = -0.
  atan      Cephes atanf (upstream's AtanApproximation has the same three ranges): |x| >
            tan(3pi/8) maps to pi/2 - atan(1/|x|), |x| > tan(pi/8) to pi/4 + atan((|x| - 1) /
            (|x| + 1)) (one divide, operands chosen by select), then an odd polynomial of degree
            9; pi/2 and pi/4 added as f32 hi + lo. Absolute error 1.1e-7 [1.2e-7].
            atan(+-inf) = +-pi/2, atan(-0) = -0, atan(NaN) = NaN.
"""

import numpy as np
from versa.mlir import arith, ir, math

from ...common.compute_types import with_element
from .builder import Builder

_F = arith.CmpFPredicate
_SIGN = -(2**31)  # 0x80000000 as a signed i32

# Cephes sinf / cosf on [-pi/4, pi/4]: sin r = r + r^3 S(r^2), cos r = 1 - r^2 / 2 + r^4 C(r^2).
_SIN_P = [-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1]
_COS_P = [2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2]
# pi/2 as two doubles: hi is pi/2 rounded to f64, lo the rest (6.1e-17).
_PIO2_HI = 1.5707963267948966
_PIO2_LO = 6.123233995736766e-17
_TWO_OVER_PI = 0.6366197723675814
_ROUND52 = 1.5 * 2.0**52  # adding it rounds an f64 to an integer held in the low mantissa bits

# Cephes atanf on [-tan(pi/8), tan(pi/8)]: atan t = t + t^3 P(t^2).
_ATAN_P = [8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1]
_TAN_3PI_8 = 2.414213562373095
_TAN_PI_8 = 0.4142135623730950
# pi/2 and pi/4 as f32 hi + lo: the f32 constants alone are 2e-8 off.
_PIO2_F32, _PIO4_F32 = float(np.float32(np.pi / 2)), float(np.float32(np.pi / 4))
_PIO2_F32_LO, _PIO4_F32_LO = np.pi / 2 - _PIO2_F32, np.pi / 4 - _PIO4_F32


def _reduce(b: Builder, a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """|x| (`a`, f32) → (r, q): r = a - k pi/2 (f32, in [-pi/4, pi/4] up to the overshoot the
    module docstring bounds) and the quadrant k mod 4 (i32), k = round(a 2/pi), all in f64."""
    f64 = with_element(b.ftype, ir.F64Type.get())
    i64 = with_element(b.ftype, ir.IntegerType.get_signless(64))

    def d(value: float) -> ir.Value:
        return b.constant(f64, ir.FloatAttr.get(ir.F64Type.get(), value))

    wide = arith.extf(f64, a)
    # k in the low bits of t (no fptosi: a NaN or inf gives garbage bits there, never poison).
    t = math.fma(wide, d(_TWO_OVER_PI), d(_ROUND52))
    k = arith.subf(t, d(_ROUND52))
    r = math.fma(k, d(-_PIO2_HI), wide)
    r = math.fma(k, d(-_PIO2_LO), r)
    q = arith.andi(arith.trunci(b.itype, arith.bitcast(i64, t)), b.i(3))
    # |r| <= pi/4 (+ 0.11 near 1.7e15) below 1.7e15; beyond, where t loses k's low bits, the
    # clamp keeps the polynomials finite (results in [-1, 1], not NaN).
    return b.clamp_keep_nan(arith.truncf(b.ftype, r), -1.0, 1.0), q


def _polynomials(b: Builder, r: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(sin r, cos r) for r in [-pi/4, pi/4]."""
    z = arith.mulf(r, r)
    s = math.fma(arith.mulf(r, z), b.horner(z, _SIN_P), r)
    c = math.fma(arith.mulf(z, z), b.horner(z, _COS_P), math.fma(z, b.f(-0.5), b.f(1.0)))
    return s, c


def _flip(b: Builder, y: ir.Value, sign_bits: ir.Value) -> ir.Value:
    """y with its sign bit xor-ed with `sign_bits` (i32: 0 or 0x80000000)."""
    return b.as_float(arith.xori(b.as_int(y), sign_bits))


def _bit(b: Builder, q: ir.Value, bit: int) -> ir.Value:
    """Bit `bit` of q moved to the sign bit: 0 or 0x80000000."""
    return arith.shli(arith.andi(q, b.i(1 << bit)), b.i(31 - bit))


def _odd(b: Builder, q: ir.Value) -> ir.Value:
    return arith.cmpi(arith.CmpIPredicate.ne, arith.andi(q, b.i(1)), b.i(0))


def _sign_of(b: Builder, x: ir.Value) -> ir.Value:
    return arith.andi(b.as_int(x), b.i(_SIGN))


def sin(b: Builder, x: ir.Value) -> ir.Value:
    # sin x = sign(x) sin|x|; sin(|x|) = s, c, -s, -c in quadrants 0, 1, 2, 3.
    r, q = _reduce(b, math.absf(x))
    s, c = _polynomials(b, r)
    y = arith.select(_odd(b, q), c, s)
    return _flip(b, y, arith.xori(_bit(b, q, 1), _sign_of(b, x)))


def cos(b: Builder, x: ir.Value) -> ir.Value:
    # cos x = cos|x| = c, -s, -c, s in quadrants 0, 1, 2, 3: sin's table at quadrant q + 1.
    r, q = _reduce(b, math.absf(x))
    s, c = _polynomials(b, r)
    q = arith.addi(q, b.i(1))
    y = arith.select(_odd(b, q), c, s)
    return _flip(b, y, _bit(b, q, 1))


def tan(b: Builder, x: ir.Value) -> ir.Value:
    # tan x = sign(x) tan|x|; tan|x| = s / c in even quadrants, -c / s in odd ones.
    r, q = _reduce(b, math.absf(x))
    s, c = _polynomials(b, r)
    odd = _odd(b, q)
    y = arith.divf(arith.select(odd, c, s), arith.select(odd, s, c))
    return _flip(b, y, arith.xori(_bit(b, q, 0), _sign_of(b, x)))


def atan(b: Builder, x: ir.Value) -> ir.Value:
    # atan is odd: work on |x| and copy the sign of x on (atan(-0) = -0). NaN fails both compares
    # and stays NaN through the divide and the polynomial.
    a = math.absf(x)
    big = arith.cmpf(_F.OGT, a, b.f(_TAN_3PI_8))
    mid = arith.cmpf(_F.OGT, a, b.f(_TAN_PI_8))
    one = b.f(1.0)
    numerator = arith.select(big, b.f(-1.0), arith.select(mid, arith.subf(a, one), a))
    denominator = arith.select(big, a, arith.select(mid, arith.addf(a, one), one))
    t = arith.divf(numerator, denominator)  # in [-tan(pi/8), tan(pi/8)]; -0 for |x| = inf
    z = arith.mulf(t, t)
    y = math.fma(arith.mulf(t, z), b.horner(z, _ATAN_P), t)
    # + pi/2 or pi/4 (or 0), each as hi + lo.
    zero = b.f(0.0)
    hi = arith.select(big, b.f(_PIO2_F32), arith.select(mid, b.f(_PIO4_F32), zero))
    lo = arith.select(big, b.f(_PIO2_F32_LO), arith.select(mid, b.f(_PIO4_F32_LO), zero))
    return math.copysign(arith.addf(hi, arith.addf(y, lo)), x)


REWRITES = {"math.sin": sin, "math.cos": cos, "math.tan": tan, "math.atan": atan}
