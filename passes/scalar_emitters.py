"""The scalar form of each elementwise versa op, as arith and math on one element.

One table, `SCALAR`, so every elementwise op has exactly one scalar form. convert-versa-to-linalg
shares it between the body of each one-op `linalg.generic`, the single generic of a
`versa.fused` group of kind "elementwise" and the combiner of a reduction, so the two
elementwise paths cannot drift apart. An elementwise op is one entry here; its lowering
pattern is derived from the table.

    SCALAR["add"]([%x, %z], f32, {})   builds   %s = arith.addf %x, %z : f32
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from versa.mlir import arith, ir
from versa.mlir import math as mmath

from . import linalg_builders as build

# the operands' scalars, the result element type, the op's attrs → the result scalar
Scalar = Callable[[Sequence[ir.Value], ir.Type, dict[str, Any]], ir.Value]


def _typed(float_fn: Callable[..., ir.Value], int_fn: Callable[..., ir.Value]) -> Scalar:
    return lambda xs, out, attrs: (float_fn if build.is_float(xs[0].type) else int_fn)(*xs)


def _unary(fn: Callable[[ir.Value], ir.Value]) -> Scalar:
    return lambda xs, out, attrs: fn(xs[0])


def _neg(x: ir.Value) -> ir.Value:
    return arith.negf(x) if build.is_float(x.type) else arith.subi(build.scalar(x.type, 0), x)


def _relu(x: ir.Value) -> ir.Value:
    zero = build.scalar(x.type, 0)
    return arith.maximumf(x, zero) if build.is_float(x.type) else arith.maxsi(x, zero)


def _sigmoid(x: ir.Value) -> ir.Value:
    one = build.scalar(x.type, 1.0)
    return arith.divf(one, arith.addf(one, mmath.exp(arith.negf(x))))


def _gelu(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    """0.5 x (1 + erf(x / √2)), or torch's 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))."""
    x, t = xs[0], xs[0].type
    if attrs["approximate"] == "tanh":
        cube = arith.mulf(arith.mulf(x, x), x)
        inner = arith.addf(x, arith.mulf(build.scalar(t, 0.044715), cube))
        curve = mmath.tanh(arith.mulf(build.scalar(t, np.sqrt(2.0 / np.pi)), inner))
    else:
        curve = mmath.erf(arith.divf(x, build.scalar(t, np.sqrt(2.0))))
    half_x = arith.mulf(build.scalar(t, 0.5), x)
    return arith.mulf(half_x, arith.addf(build.scalar(t, 1.0), curve))


def _clamp(xs: Sequence[ir.Value], out: ir.Type, attrs: dict[str, Any]) -> ir.Value:
    x = xs[0]
    if attrs["min"] is not None:
        x = arith.maximumf(x, build.scalar(out, attrs["min"]))
    if attrs["max"] is not None:
        x = arith.minimumf(x, build.scalar(out, attrs["max"]))
    return x


# op name → scalar computation from the operands' scalars, the result element type, the attrs
SCALAR: dict[str, Scalar] = {
    "add": _typed(arith.addf, arith.addi),
    "sub": _typed(arith.subf, arith.subi),
    "mul": _typed(arith.mulf, arith.muli),
    "div": _typed(arith.divf, arith.divsi),
    "max": _typed(arith.maximumf, arith.maxsi),
    "min": _typed(arith.minimumf, arith.minsi),
    "pow": lambda xs, out, attrs: mmath.powf(*xs),
    "neg": _unary(_neg),
    "abs": _typed(mmath.absf, mmath.absi),
    "exp": _unary(mmath.exp),
    "log": _unary(mmath.log),
    "sqrt": _unary(mmath.sqrt),
    "rsqrt": _unary(mmath.rsqrt),
    "tanh": _unary(mmath.tanh),
    "sigmoid": _unary(_sigmoid),
    "relu": _unary(_relu),
    "erf": _unary(mmath.erf),
    "gelu": _gelu,
    "clamp": _clamp,
    "cast": lambda xs, out, attrs: build.convert(xs[0], out),
    "broadcast_to": lambda xs, out, attrs: xs[0],  # the broadcast is all in the indexing map
}
