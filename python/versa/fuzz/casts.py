"""The generator's casts, float→int ones built so that their reference is well defined.

versa.cast truncates a float toward zero (`arith.fptosi`, NumPy's `astype`); NaN and values
outside the integer type are undefined, and truncation jumps at every nonzero integer, so an
input within rounding error of one truncates differently in -O0, -O3 and the float64
reference, a false finding. The input is therefore made in IR as `w + f`: `w` an integer
value converted to the float type and clamped to +-32 (exact in f16 too), `f` = clamp(x) with
|f| in [0.1, 0.4] or [0.6, 0.9]. Every input is then at least 0.08 (f16 rounding included)
from an integer and from a .5 tie, so rounding instead of truncating, or flooring negative
values, shows as a mismatch, and every integer type holds the result.
"""

import math

from .program import Op, Type, Value

INT_TYPES = ("i32", "i64", "i8")
WHOLE = 32.0
FRACTIONS = ((0.1, 0.4), (0.6, 0.9), (-0.4, -0.1), (-0.9, -0.6))
TO_INT = 0.6  # share of float casts that go to an integer type


def cast(gen, x: Value) -> Op | None:
    if x.type.is_float and gen.rng.random() < TO_INT:
        return float_to_int(gen, x)
    if x.type.is_float:
        targets = ["f32", "f16"]
    else:
        targets = ["f32", "i32", "i64", "i8"] if x.type.element != "i1" else ["f32", "i32"]
    element = gen.rng.choice([t for t in targets if t != x.type.element])
    lo, hi = gen.range(x)
    if element == "i8":
        lo, hi = max(lo, -128), min(hi, 127)
    return gen.add("cast", [x], {}, Type(x.type.shape, element), (lo, hi))


def float_to_int(gen, x: Value) -> Op | None:
    """cast(w + f) to an integer type, `w` and `f` as the module says."""
    t = x.type
    found = gen.pick(lambda v: v.type.element in INT_TYPES and v.type.shape == t.shape)
    whole = found or gen.arg(Type(t.shape, gen.rng.choice(INT_TYPES)))
    whole = gen.add("cast", [whole], {}, t, gen.range(whole))
    if whole is not None and found is not None:  # a mutant's ranges are guesses: always clamp
        whole = gen.add("clamp", [whole], {"min": -WHOLE, "max": WHOLE}, t, (-WHOLE, WHOLE))
    fraction = gen.clamped(x, *gen.rng.choice(FRACTIONS))
    if whole is None or fraction is None:
        return None
    (w0, w1), (f0, f1) = gen.range(whole), gen.range(fraction)
    value = gen.add("add", [whole, fraction], {}, t, (w0 + f0, w1 + f1))
    if value is None:
        return None
    lo, hi = gen.range(value)
    element = gen.rng.choice(INT_TYPES)
    return gen.add("cast", [value], {}, Type(t.shape, element), (math.trunc(lo), math.trunc(hi)))
