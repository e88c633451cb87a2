"""The scalar form of each elementwise versa op, as arith and math on one element.

One table, `SCALAR`, so every elementwise op has exactly one scalar form. convert-versa-to-linalg
shares it between the body of each one-op `linalg.generic`, the single generic of a
`versa.fused` group of kind "elementwise" and the combiner of a reduction, so the two
elementwise paths cannot drift apart. An elementwise op is one entry here; its lowering
pattern is derived from the table.

    SCALAR["add"]([%x, %z], f32, {})   builds   %s = arith.addf %x, %z : f32

sigmoid and gelu of f16/bf16 compute in f32 and round once (`compute_types.wrap_scalar`), as
PyTorch's do: in f16 each of their five ops would round (and, on x86, convert both ways).
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from versa.mlir import arith, ir
from versa.mlir import math as mmath

from . import linalg_builders as build
from .compute_types import wrap_scalar

# the operands' scalars, the result element type, the op's attrs → the result scalar
Scalar = Callable[[Sequence[ir.Value], ir.Type, dict[str, Any]], ir.Value]


def _typed(float_fn: Callable[..., ir.Value], int_fn: Callable[..., ir.Value]) -> Scalar:
    return lambda xs, out, attrs: (float_fn if build.is_float(xs[0].type) else int_fn)(*xs)


def _unary(fn: Callable[[ir.Value], ir.Value]) -> Scalar:
    return lambda xs, out, attrs: fn(xs[0])


def _neg(x: ir.Value) -> ir.Value:
    return arith.negf(x) if build.is_float(x.type) else arith.subi(build.scalar(x.type, 0), x)


def _idiv(a: ir.Value, b: ir.Value) -> ir.Value:
    """a / b truncated toward zero, defined where the hardware traps (x86 `idiv` raises SIGFPE):
    a / 0 is 0 and MIN / -1 is MIN, as NumPy's integer division gives them. The divisor becomes
    1 there, and the quotient 0 where it was 0."""
    eq = arith.CmpIPredicate.eq
    zero = arith.cmpi(eq, b, build.scalar(b.type, 0))
    overflow = arith.andi(
        arith.cmpi(eq, b, build.scalar(b.type, -1)), arith.cmpi(eq, a, build.lowest(a.type))
    )
    safe = arith.select(arith.ori(zero, overflow), build.scalar(b.type, 1), b)
    return arith.select(zero, build.scalar(a.type, 0), arith.divsi(a, safe))


def _iabs(x: ir.Value) -> ir.Value:
    """|x| of an integer as max(x, 0 - x) (the smallest value stays itself, as in NumPy):
    `math.absi` on i64 has no lowering in convert-gpu-to-nvvm, and LLVM matches this form."""
    return arith.maxsi(x, _neg(x))


def _relu(x: ir.Value) -> ir.Value:
    zero = build.scalar(x.type, 0)
    return arith.maximumf(x, zero) if build.is_float(x.type) else arith.maxsi(x, zero)


def _sigmoid(x: ir.Value) -> ir.Value:
    one = build.scalar(x.type, 1.0)
    return arith.divf(one, arith.addf(one, mmath.exp(arith.negf(x))))


def _sign(x: ir.Value) -> ir.Value:
    """-1, 0 or 1 in x's type; NaN (both compares false) and -0 give +0, as torch.sign."""
    if build.is_float(x.type):
        above, below = arith.CmpFPredicate.OGT, arith.CmpFPredicate.OLT
        positive, negative = (arith.cmpf(p, x, build.scalar(x.type, 0)) for p in (above, below))
    else:
        above, below = arith.CmpIPredicate.sgt, arith.CmpIPredicate.slt
        positive, negative = (arith.cmpi(p, x, build.scalar(x.type, 0)) for p in (above, below))
    tail = arith.select(negative, build.scalar(x.type, -1), build.scalar(x.type, 0))
    return arith.select(positive, build.scalar(x.type, 1), tail)


def _log1p(x: ir.Value) -> ir.Value:
    """log(1 + x) as Kahan's log(u) · x / (u - 1), u = 1 + x (the rounding error of u cancels);
    x where u rounds to 1, inf at inf; -1 gives -inf, below -1 NaN. Upstream's Log1pApproximation
    is this form, but its pass is not in this wheel and convert-math-to-llvm lowers math.log1p to
    the naive log(1 + x): so it is built here on math.log (versa-fast-math's at -O1 and up)."""
    one = build.scalar(x.type, 1.0)
    u = arith.addf(one, x)
    d = arith.subf(u, one)
    y = arith.mulf(mmath.log(u), arith.divf(x, d))  # x / d first: x · log(u) overflows for x near max
    y = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, d, build.scalar(x.type, 0.0)), x, y)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, build.scalar(x.type, np.inf)), x, y)


def _expm1(x: ir.Value) -> ir.Value:
    """e^x - 1 as Kahan's (u - 1) · x / log(u), u = e^x (the rounding error of u cancels); x where
    u rounds to 1, -1 where u is 0 (x below -104, -inf), inf where u is. As upstream's
    ExpM1Approximation, for the reasons `_log1p` gives, on math.exp and math.log."""
    one, eq = build.scalar(x.type, 1.0), arith.CmpFPredicate.OEQ
    u = mmath.exp(x)
    d = arith.subf(u, one)
    y = arith.mulf(d, arith.divf(x, mmath.log(u)))
    y = arith.select(arith.cmpf(eq, d, build.scalar(x.type, 0.0)), x, y)
    y = arith.select(arith.cmpf(eq, d, build.scalar(x.type, -1.0)), build.scalar(x.type, -1.0), y)
    return arith.select(arith.cmpf(eq, u, build.scalar(x.type, np.inf)), u, y)


def _gelu(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    """0.5 x (1 + erf(x / √2)), or torch's 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))."""
    x, t = xs[0], xs[0].type
    if attrs["approximate"] == "tanh":
        cube = arith.mulf(arith.mulf(x, x), x)
        inner = arith.addf(x, arith.mulf(build.scalar(t, 0.044715), cube))
        curve = mmath.tanh(arith.mulf(build.scalar(t, np.sqrt(2.0 / np.pi)), inner))
    else:
        # x / √2 as x · √0.5 (within an ulp): a vector divide costs ~10x a multiply.
        curve = mmath.erf(arith.mulf(x, build.scalar(t, np.sqrt(0.5))))
    half_x = arith.mulf(build.scalar(t, 0.5), x)
    return arith.mulf(half_x, arith.addf(build.scalar(t, 1.0), curve))


def _clamp(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    x = xs[0]
    if attrs["min"] is not None:
        x = arith.maximumf(x, build.scalar(out, attrs["min"]))
    if attrs["max"] is not None:
        x = arith.minimumf(x, build.scalar(out, attrs["max"]))
    return x


_FLOAT_PREDICATES = {
    "eq": arith.CmpFPredicate.OEQ,
    "ne": arith.CmpFPredicate.UNE,  # unordered: NaN != x is true (NumPy, torch)
    "lt": arith.CmpFPredicate.OLT,
    "le": arith.CmpFPredicate.OLE,
    "gt": arith.CmpFPredicate.OGT,
    "ge": arith.CmpFPredicate.OGE,
}
# Signed for integers; i1 compares unsigned (false < true; signed, true would be -1).
_INT_PREDICATES = {p: getattr(arith.CmpIPredicate, p) for p in ("eq", "ne")} | {
    (p, signed): getattr(arith.CmpIPredicate, ("s" if signed else "u") + p)
    for p in ("lt", "le", "gt", "ge")
    for signed in (True, False)
}


def _compare(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    (a, b), predicate = xs, attrs["predicate"]
    if build.is_float(a.type):
        return arith.cmpf(_FLOAT_PREDICATES[predicate], a, b)
    key = predicate if predicate in ("eq", "ne") else (predicate, ir.IntegerType(a.type).width > 1)
    return arith.cmpi(_INT_PREDICATES[key], a, b)


def _not(x: ir.Value) -> ir.Value:
    """Logical not of i1, bitwise not of integers: x xor all-ones."""
    return arith.xori(x, build.scalar(x.type, -1))


def _batch_norm(xs: Sequence[ir.Value], out: ir.Type, epsilon: float) -> ir.Value:
    x, scale, bias, mean, var = xs
    normed = arith.divf(arith.subf(x, mean), mmath.sqrt(arith.addf(var, build.scalar(out, epsilon))))
    return arith.addf(arith.mulf(normed, scale), bias)


def batch_norm_scalar(xs: Sequence[ir.Value], out: ir.Type, epsilon: float) -> ir.Value:
    """(x - mean) / sqrt(var + eps) * scale + bias, from the scalars (x, scale, bias, mean, var)
    (not in SCALAR: its operands broadcast along the channel dim, not NumPy-style). Half types
    compute in f32 and round once, as PyTorch's kernel does (in f16, eps = 1e-5 vanishes beside
    var ~ 1, and five roundings stack)."""
    return wrap_scalar(lambda wide, element, attrs: _batch_norm(wide, element, epsilon))(xs, out, {})


# op name → scalar computation from the operands' scalars, the result element type, the attrs
SCALAR: dict[str, Scalar] = {
    "add": _typed(arith.addf, arith.addi),
    "sub": _typed(arith.subf, arith.subi),
    "mul": _typed(arith.mulf, arith.muli),
    "div": _typed(arith.divf, _idiv),
    "max": _typed(arith.maximumf, arith.maxsi),
    "min": _typed(arith.minimumf, arith.minsi),
    "pow": lambda xs, out, attrs: mmath.powf(*xs),
    "neg": _unary(_neg),
    "abs": _typed(mmath.absf, _iabs),
    "exp": _unary(mmath.exp),
    "log": _unary(mmath.log),
    "sqrt": _unary(mmath.sqrt),
    "rsqrt": _unary(mmath.rsqrt),
    "tanh": _unary(mmath.tanh),
    "sigmoid": wrap_scalar(_unary(_sigmoid)),
    "relu": _unary(_relu),
    "erf": _unary(mmath.erf),
    "gelu": wrap_scalar(_gelu),
    "clamp": _clamp,
    # sin, cos, tan, atan: vector polynomials at -O1 and up (versa-fast-math), libm at -O0;
    # floor, ceil, roundeven, trunc: one vector instruction each (llvm.floor ... intrinsics).
    "sin": _unary(mmath.sin),
    "cos": _unary(mmath.cos),
    "tan": _unary(mmath.tan),
    "atan": _unary(mmath.atan),
    "log1p": wrap_scalar(_unary(_log1p)),
    "expm1": wrap_scalar(_unary(_expm1)),
    "floor": _unary(mmath.floor),
    "ceil": _unary(mmath.ceil),
    "round": _unary(mmath.roundeven),  # ties to even, as torch.round
    "trunc": _unary(mmath.trunc),
    "sign": _unary(_sign),
    "cast": lambda xs, out, attrs: build.convert(xs[0], out),
    "compare": _compare,
    "select": lambda xs, out, attrs: arith.select(*xs),
    "and": lambda xs, out, attrs: arith.andi(*xs),
    "or": lambda xs, out, attrs: arith.ori(*xs),
    "not": _unary(_not),
    "broadcast_to": lambda xs, out, attrs: xs[0],  # the broadcast is all in the indexing map
}
