"""Elementwise math beyond `versa.py`'s: trigonometry, log1p/expm1, rounding and sign.

    %s = "versa.sin"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = "versa.round"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>      half to even, as torch.round
    %g = "versa.sign"(%i) : (tensor<8xi32>) -> tensor<8xi32>

What torch models use them for: sin/cos in sinusoidal position and diffusion timestep embeddings
and rotary tables (tan, atan less often: atan2, angles), log1p/expm1 in softplus-like losses and
ELU, floor/ceil/round/trunc/sign in index math, quantisation and rounding-mode divisions.

Semantics (NumPy, `semantics.py`), with torch's choices where the two differ:
  sin cos tan atan log1p expm1   floats; as np.sin ... np.expm1
  floor ceil trunc               floats; exact (inf, NaN and -0 pass through)
  round                          floats; to the nearest integer, ties to even (np.rint, torch.round)
  sign                           floats and integers; -1, 0 or 1: sign(-0) = 0 and sign(NaN) = 0,
                                 as torch.sign (NumPy's gives NaN)

All are elementwise, so `versa-fuse` groups them with their neighbours. Their scalar forms are
in `passes/scalar_emitters.py`; at -O1 and up `versa-fast-math` turns sin/cos/tan/atan into
vector polynomials (floor, ceil, round and trunc are one vector instruction each).
"""

from versa.mlir import ext

from .core import ElementwiseUnaryOp, FloatUnaryOp, Tensor


class SinOp(FloatUnaryOp, name="sin", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class CosOp(FloatUnaryOp, name="cos", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class TanOp(FloatUnaryOp, name="tan", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class AtanOp(FloatUnaryOp, name="atan", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class Log1pOp(FloatUnaryOp, name="log1p", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class Expm1Op(FloatUnaryOp, name="expm1", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class FloorOp(FloatUnaryOp, name="floor", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class CeilOp(FloatUnaryOp, name="ceil", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class RoundOp(FloatUnaryOp, name="round", traits=[ext.Pure]):
    """To the nearest integer, ties to even: 0.5 → 0, 1.5 → 2, -2.5 → -2."""

    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class TruncOp(FloatUnaryOp, name="trunc", traits=[ext.Pure]):
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


class SignOp(ElementwiseUnaryOp, name="sign", traits=[ext.Pure]):
    """-1, 0 or 1 in the input's type (floats and integers); sign(NaN) = 0, as torch.sign."""

    NUMERIC = True
    input: ext.Operand[Tensor]
    result: ext.Result[Tensor]


__all__ = [
    "AtanOp",
    "CeilOp",
    "CosOp",
    "Expm1Op",
    "FloorOp",
    "Log1pOp",
    "RoundOp",
    "SignOp",
    "SinOp",
    "TanOp",
    "TruncOp",
]
