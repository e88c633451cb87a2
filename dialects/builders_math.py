"""Builders of the trigonometric, log1p/expm1, rounding and sign ops (`ops_math.py`),
re-exported by `builders.py`: call them as `vb.sin(x)`, `vb.round(x)`; conventions as there.

    angles = vb.mul(positions, inv_freq)
    table = vb.concat([vb.sin(angles), vb.cos(angles)], axis=-1)     # a rotary table
    q = vb.floor(vb.div(a, b))                                        # float floor division

`round` shadows a Python builtin: import the module, not the name.
"""

from versa.mlir import ir

from . import ops_math as m
from .build_support import Ip, Loc, unary


def sin(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.sin`: the sine (radians)."""
    return unary(m.SinOp, x, loc, ip)


def cos(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.cos`: the cosine (radians)."""
    return unary(m.CosOp, x, loc, ip)


def tan(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.tan`: the tangent (radians)."""
    return unary(m.TanOp, x, loc, ip)


def atan(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.atan`: the arc tangent, in (-pi/2, pi/2)."""
    return unary(m.AtanOp, x, loc, ip)


def log1p(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.log1p`: log(1 + x), accurate for tiny x."""
    return unary(m.Log1pOp, x, loc, ip)


def expm1(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.expm1`: e ** x - 1, accurate for tiny x."""
    return unary(m.Expm1Op, x, loc, ip)


def floor(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.floor`: the largest integer not above x (floats)."""
    return unary(m.FloorOp, x, loc, ip)


def ceil(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.ceil`: the smallest integer not below x (floats)."""
    return unary(m.CeilOp, x, loc, ip)


def round(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.round`: the nearest integer, ties to even (0.5 → 0, 1.5 → 2), as torch.round."""
    return unary(m.RoundOp, x, loc, ip)


def trunc(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.trunc`: x rounded toward zero (floats)."""
    return unary(m.TruncOp, x, loc, ip)


def sign(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.sign`: -1, 0 or 1 (floats and integers); sign(NaN) = 0, as torch.sign."""
    return unary(m.SignOp, x, loc, ip)
