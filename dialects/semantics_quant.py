"""NumPy reference semantics of the quantized ops (dialects/ops_quant.py), registered into
`semantics.SEMANTICS` under its calling convention. Integer-exact: every float step is one
IEEE f32 operation (a division, a product) that compiled code performs the same way, so
results match bit for bit; integers are summed in int64 and wrap to i32 once (the same
residue as i32 accumulation).

Rounding is half to even throughout. ONNX QuantizeLinear is `saturate(rint(x / scale) + zp)`,
which this follows. torch differs (docs/facts.md): `quantize_per_channel` rounds
`x * (1 / scale) + zp`, `quantize_per_tensor` the same with a fused multiply-add on AVX2, so
it can differ by one at ties when zp is odd, or where `x * (1/scale) != x / scale`. NaN
quantizes to the zero point (ONNX and torch leave it undefined).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

_RANGES = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}


def _along(p: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A 0-d parameter as is; a 1-d (per-channel) one shaped to broadcast along `axis`."""
    if p.ndim == 0:
        return p
    shape = [1] * ndim
    shape[axis % ndim] = p.size
    return p.reshape(shape)


def _saturate(rounded: np.ndarray, zero_point: np.ndarray, low: int, high: int) -> np.ndarray:
    """clamp(rounded + zp, low, high) without overflow: clamp in the float domain first; NaN → zp."""
    z = zero_point.astype(np.int64)
    r = np.where(np.isnan(rounded), 0.0, rounded)
    return np.clip(r, low - z, high - z).astype(np.int64) + z


def quantize(
    x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, dtype: np.dtype, axis: int = 1
) -> np.ndarray:
    s, z = _along(scale, x.ndim, axis), _along(zero_point, x.ndim, axis)
    rounded = np.rint(x.astype(np.float32) / s.astype(np.float32))
    return _saturate(rounded, z, *_RANGES[np.dtype(dtype)])


def dequantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, axis: int = 1) -> np.ndarray:
    s, z = _along(scale, x.ndim, axis), _along(zero_point, x.ndim, axis)
    centred = (x.astype(np.int32) - z.astype(np.int32)).astype(np.float32)
    return centred * s.astype(np.float32)


def requantize(
    x: np.ndarray,
    scale: np.ndarray,
    zero_point: np.ndarray,
    *,
    dtype: np.dtype,
    axis: int = 1,
    min: int | None = None,
    max: int | None = None,
) -> np.ndarray:
    s, z = _along(scale, x.ndim, axis), _along(zero_point, x.ndim, axis)
    rounded = np.rint(x.astype(np.float32) * s.astype(np.float32))
    low, high = _RANGES[np.dtype(dtype)]  # the result's: a folded constant's zp may be int64
    low, high = low if min is None else min, high if max is None else max
    return _saturate(rounded, z, low, high)


def _centred(x: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    return x.astype(np.int64) - zero_point.astype(np.int64)


def qmatmul(a: np.ndarray, b: np.ndarray, a_zero: np.ndarray, b_zero: np.ndarray) -> np.ndarray:
    return np.matmul(_centred(a, a_zero), _centred(b, b_zero)).astype(np.int32)


def table(conv2d: Callable[..., np.ndarray]) -> dict[str, Callable[..., Any]]:
    """The semantics by op name; `conv2d` is the float conv's (integers pass through it exactly
    in int64), handed in because that table imports this one."""

    def qconv2d(
        x: np.ndarray, w: np.ndarray, x_zero: np.ndarray, w_zero: np.ndarray, **attrs: Any
    ) -> np.ndarray:
        return conv2d(_centred(x, x_zero), _centred(w, w_zero), **attrs).astype(np.int32)

    return {
        "quantize": quantize,
        "dequantize": dequantize,
        "requantize": requantize,
        "qmatmul": qmatmul,
        "qconv2d": qconv2d,
    }
