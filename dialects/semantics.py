"""NumPy reference semantics of every `versa` op, in one table.

This is the oracle: tests compare compiled kernels against it, constant folding evaluates ops
with it, and the fuzzer uses it to judge random programs. It favours being obviously right
over being fast, so float math runs in float64 and is rounded to the result type once.

Every entry is called as `fn(*inputs, shape=..., dtype=..., **attrs)` and returns a fresh
array of exactly `shape` and `dtype`; a result of any other shape raises `ValueError`, since
it means the op's declared type and its semantics disagree.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from inspect import signature
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from . import semantics_indexing, semantics_quant

Shape = tuple[int, ...]
Pair = Sequence[int]

SEMANTICS: dict[str, Callable[..., np.ndarray]] = {}


def evaluate(
    name: str, inputs: list[np.ndarray], attrs: dict[str, Any], shape: Shape, dtype: DTypeLike
) -> np.ndarray:
    """Run op `name` ("add" or "versa.add") on `inputs` with result type `shape` x `dtype`."""
    op = name.removeprefix("versa.")
    if op not in SEMANTICS:
        raise KeyError(f"no reference semantics for op 'versa.{op}'")
    return SEMANTICS[op](*inputs, shape=shape, dtype=dtype, **attrs)


def _register(name: str, fn: Callable[..., Any]) -> None:
    """Store `fn` under `name`, wrapped to take the common calling convention.

    `fn` gets the inputs as arrays, the attributes, and `shape` (`dtype`) only if it names it; the
    wrapper silences NumPy's float warnings (inf and nan are results, not errors), casts to
    `dtype` and checks the shape.
    """
    wants_shape = "shape" in signature(fn).parameters
    wants_dtype = "dtype" in signature(fn).parameters  # the quantized ops saturate to it

    def op(*inputs: np.ndarray, shape: Sequence[int], dtype: DTypeLike, **attrs: Any) -> np.ndarray:
        shape, dtype = tuple(int(d) for d in shape), np.dtype(dtype)
        extra = {"shape": shape} if wants_shape else {}
        extra |= {"dtype": dtype} if wants_dtype else {}
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*map(np.asarray, inputs), **attrs, **extra)).astype(dtype)
        if out.shape != shape:
            raise ValueError(
                f"versa.{name}: reference result has shape {out.shape}, but the op declares {shape}"
            )
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = fn.__doc__
    SEMANTICS[name] = op


def _op(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator form of `_register`."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        _register(name, fn)
        return fn

    return decorate


def _is_int(*xs: np.ndarray) -> bool:
    return np.issubdtype(np.result_type(*xs), np.integer)


def _wide(x: np.ndarray) -> np.ndarray:
    """Floats widened to float64; integers untouched (they keep their wrap-around)."""
    return x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x


def _f64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)


# --- elementwise -------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])

for _name, _fn in {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "neg": np.negative,
    "abs": np.abs,
}.items():
    _register(_name, lambda *xs, f=_fn: f(*xs))

for _name, _fn in {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "erf": _erf,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "atan": np.arctan,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.rint,  # ties to even, as torch.round
    "trunc": np.trunc,
}.items():
    _register(_name, lambda x, f=_fn: f(_f64(x)))


@_op("sign")
def _sign(x: np.ndarray) -> np.ndarray:
    """-1, 0 or 1; torch's sign(NaN) = 0 and sign(-0) = +0 (NumPy gives NaN and -0)."""
    if not np.issubdtype(x.dtype, np.floating):
        return np.sign(x)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


_register("relu", lambda x: np.maximum(x, 0))
_register("cast", lambda x: x)  # the wrapper's astype converts; float->int truncates to zero


@_op("div")
def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integers truncate toward zero (C, arith.divsi); floats divide exactly."""
    if not _is_int(a, b):
        return a / b
    inexact_negative = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return np.floor_divide(a, b) + inexact_negative


@_op("pow")
def _pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer powers with a negative exponent truncate 1 / a**|b| toward zero (math.ipowi)."""
    if not _is_int(a, b):
        return np.power(a, b)
    magnitude = np.power(a, np.abs(b))
    return np.where((b >= 0) | (np.abs(a) == 1), magnitude, 0)


@_op("gelu")
def _gelu(x: np.ndarray, *, approximate: str = "none") -> np.ndarray:
    """torch.nn.functional.gelu, exact (erf) or with its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"versa.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    x = _f64(x)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


@_op("clamp")
def _clamp(x: np.ndarray, *, min: float | None = None, max: float | None = None) -> np.ndarray:
    if min is None and max is None:
        return x
    return np.clip(x, min, max)


@_op("constant")
def _constant(*, shape: Shape, value: Any) -> np.ndarray:
    value = np.asarray(value)
    if value.size == math.prod(shape):
        return value.reshape(shape)
    return np.broadcast_to(value, shape)


# --- contractions and windows ------------------------------------------------------------

_register("matmul", lambda a, b: np.matmul(_wide(a), _wide(b)))


def _check_layout(layout: str) -> None:
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"layout must be 'NCHW' or 'NHWC', got {layout!r}")


def _to_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    _check_layout(layout)
    return x if layout == "NCHW" else x.transpose(0, 3, 1, 2)


def _from_nchw(y: np.ndarray, layout: str) -> np.ndarray:
    return y if layout == "NCHW" else y.transpose(0, 2, 3, 1)


def _pad_hw(x: np.ndarray, padding: Pair | None, value: float) -> np.ndarray:
    """Pad the last two dims of `x` by [top, left, bottom, right]."""
    top, left, bottom, right = padding or (0, 0, 0, 0)
    widths = [(0, 0)] * (x.ndim - 2) + [(top, bottom), (left, right)]
    return np.pad(x, widths, constant_values=value)


def _taps(
    xp: np.ndarray, kernel: Pair, strides: Pair | None, dilations: Pair | None
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield (i, j, view) per kernel position: the [..., OH, OW] inputs that tap reads."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides or (1, 1), dilations or (1, 1)
    oh = (xp.shape[-2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[-1] - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise ValueError(f"window {list(kernel)} does not fit in padded input {xp.shape[-2:]}")
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            cols = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
            yield i, j, xp[..., rows, cols]


@_op("conv2d")
def _conv2d(
    x: np.ndarray,
    w: np.ndarray,
    *,
    strides: Pair | None = None,
    padding: Pair | None = None,
    dilations: Pair | None = None,
    groups: int = 1,
    layout: str = "NCHW",
) -> np.ndarray:
    x = _to_nchw(_wide(x), layout)
    w = _wide(w) if layout == "NCHW" else _wide(w).transpose(3, 2, 0, 1)  # -> [F, C/g, KH, KW]
    (n, c), (f, cg, kh, kw) = x.shape[:2], w.shape
    if c != cg * groups or f % groups:
        raise ValueError(
            f"versa.conv2d: {c} input channels, filter {w.shape} (as FCHW) and groups = {groups} do not agree"
        )
    xp = _pad_hw(x, padding, 0)
    xg = xp.reshape(n, groups, cg, *xp.shape[2:])
    wg = w.reshape(groups, f // groups, cg, kh, kw)
    y = sum(
        np.einsum("ngchw,gfc->ngfhw", tap, wg[..., i, j])
        for i, j, tap in _taps(xg, (kh, kw), strides, dilations)
    )
    return _from_nchw(y.reshape(n, f, *y.shape[-2:]), layout)


@_op("max_pool2d")
def _max_pool2d(
    x: np.ndarray,
    *,
    kernel: Pair,
    strides: Pair | None = None,
    padding: Pair | None = None,
    layout: str = "NCHW",
) -> np.ndarray:
    xp = _pad_hw(_f64(_to_nchw(x, layout)), padding, -np.inf)
    y = np.max([tap for _, _, tap in _taps(xp, kernel, strides, None)], axis=0)
    return _from_nchw(y, layout)


@_op("avg_pool2d")
def _avg_pool2d(
    x: np.ndarray,
    *,
    kernel: Pair,
    strides: Pair | None = None,
    padding: Pair | None = None,
    layout: str = "NCHW",
) -> np.ndarray:
    """Average over the unpadded elements of each window only."""
    x = _f64(_to_nchw(x, layout))
    total = sum(tap for _, _, tap in _taps(_pad_hw(x, padding, 0), kernel, strides, None))
    ones = _pad_hw(np.ones(x.shape[-2:]), padding, 0)
    count = sum(tap for _, _, tap in _taps(ones, kernel, strides, None))
    return _from_nchw(total / count, layout)


# --- reductions and normalisations -------------------------------------------------------


def _reduction(reduce: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def fn(x: np.ndarray, *, axes: Sequence[int] | None = None, keepdims: bool = False) -> np.ndarray:
        return reduce(_wide(x), axis=None if axes is None else tuple(axes), keepdims=keepdims)

    return fn


def _max(x: np.ndarray, **kwargs: Any) -> np.ndarray:
    """np.max with max's identity (-inf, the smallest integer) as the result of an empty
    reduction, the init value the lowering fills with (np.max alone raises)."""
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    return np.max(x, initial=lowest, **kwargs)


_register("reduce_sum", _reduction(np.sum))
_register("reduce_max", _reduction(_max))
_register("reduce_mean", _reduction(np.mean))


@_op("softmax")
def _softmax(x: np.ndarray, *, axis: int = -1) -> np.ndarray:
    x = _f64(x)
    e = np.exp(x - _max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@_op("layer_norm")
def _layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5
) -> np.ndarray:
    """Normalise over dims axis..rank-1 with the biased variance."""
    x = _f64(x)
    if x.size == 0:  # no rows, or rows without elements: nothing to normalise (np.mean would warn)
        return x
    dims = tuple(range(axis % x.ndim, x.ndim))
    mean, var = x.mean(axis=dims, keepdims=True), x.var(axis=dims, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * _f64(gamma) + _f64(beta)


@_op("batch_norm")
def _batch_norm(
    x: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    layout: str = "NCHW",
) -> np.ndarray:
    """Inference batch norm; the 1-D parameters run along the channel dim."""
    _check_layout(layout)
    trailing = (1,) * (x.ndim - 2) if layout == "NCHW" else ()
    scale, bias, mean, var = (_f64(p).reshape(-1, *trailing) for p in (scale, bias, mean, var))
    return (_f64(x) - mean) / np.sqrt(var + epsilon) * scale + bias


# --- data movement -----------------------------------------------------------------------

_register("transpose", lambda x, *, perm=None: np.transpose(x, perm))
_register("reshape", lambda x, *, shape: x.reshape(shape))
_register("broadcast_to", lambda x, *, shape: np.broadcast_to(x, shape))
_register("concat", lambda *xs, axis=0: np.concatenate(xs, axis=axis))


@_op("slice")
def _slice(
    x: np.ndarray,
    *,
    starts: Sequence[int] | None = None,
    limits: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    from_end: Sequence[int] | None = None,
) -> np.ndarray:
    starts = starts or (0,) * x.ndim
    limits = limits or x.shape
    strides = strides or (1,) * x.ndim
    flags = from_end or (0,) * x.ndim  # bounds counted back from the dim's end (versa.slice)
    starts = [n - s if f & 1 else s for n, s, f in zip(x.shape, starts, flags, strict=True)]
    limits = [n - s if f & 2 else s for n, s, f in zip(x.shape, limits, flags, strict=True)]
    return x[tuple(slice(*bounds) for bounds in zip(starts, limits, strides, strict=True))]


@_op("pad")
def _pad(x: np.ndarray, *, low: Sequence[int], high: Sequence[int], value: float = 0.0) -> np.ndarray:
    if x.ndim == 0:  # np.pad rejects an empty width list; a 0-d tensor has nothing to pad
        return x.copy()
    return np.pad(x, list(zip(low, high, strict=True)), constant_values=value)


# --- comparison, logic and indexing (semantics_indexing.py) ------------------------------

for _name, _fn in semantics_indexing.TABLE.items():
    _register(_name, _fn)

# --- quantization and integer contractions (semantics_quant.py) --------------------------

for _name, _fn in semantics_quant.table(conv2d=_conv2d).items():
    _register(_name, _fn)
