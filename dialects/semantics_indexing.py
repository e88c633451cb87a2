"""NumPy reference semantics of the comparison, logic and indexing ops, registered into
`semantics.SEMANTICS` (which imports this table) under the common calling convention: every
function gets the inputs as arrays and the op's attributes, and `shape` if it names it; the
wrapper there casts the result to the op's element type and checks its shape."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Shape = tuple[int, ...]
Pair = Sequence[int]

_PREDICATES = {
    "eq": np.equal,
    "ne": np.not_equal,  # NaN != x is true: the one unordered float comparison
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x


def compare(a: np.ndarray, b: np.ndarray, *, predicate: str) -> np.ndarray:
    """Ordered float comparisons except "ne"; on i1, False < True."""
    return _PREDICATES[predicate](a, b)


def gather(x: np.ndarray, indices: np.ndarray, *, axis: int) -> np.ndarray:
    """np.take along `axis`; a negative index wraps once (i + n), then every index is clamped
    to [0, n - 1], exactly what the compiled code does (it never reads out of bounds)."""
    n = x.shape[axis]
    i = indices.astype(np.int64)
    i = np.clip(np.where(i < 0, i + n, i), 0, n - 1)
    return np.take(x, i, axis=axis)


_COMBINE = {"add": np.add, "max": np.maximum, "min": np.minimum}


def scatter(
    x: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str = "none"
) -> np.ndarray:
    """ScatterND: row r of `updates` goes to x[indices[r]] (k = indices.shape[-1] leading
    coordinates), in row order; a negative coordinate wraps once, a row still out of range is
    dropped (exactly what the compiled code does: it never writes out of bounds)."""
    k = indices.shape[-1]
    lead = np.array(x.shape[:k], dtype=np.int64)
    rows = indices.reshape(-1, k).astype(np.int64)
    rows = np.where(rows < 0, rows + lead, rows)
    keep = np.all((rows >= 0) & (rows < lead), axis=1)
    values = updates.reshape(-1, *x.shape[k:])[keep]
    out, rows = x.copy(), rows[keep]
    if reduction == "none":  # in order, so the last of duplicate indices wins
        for row, value in zip(rows, values, strict=True):
            out[tuple(row)] = value
        return out
    _COMBINE[reduction].at(out, tuple(rows.T), values)  # unbuffered: duplicates accumulate
    return out


def iota(*like: np.ndarray, shape: Shape, axis: int, dims: list[int] | None = None) -> np.ndarray:
    """Each element is its index along `axis`: np.arange broadcast to `shape` (the call's: the
    dims `like` gives are already in it; its values are never read)."""
    axis %= len(shape)
    ramp = np.arange(shape[axis]).reshape([-1 if d == axis else 1 for d in range(len(shape))])
    return np.broadcast_to(ramp, shape)


def reduce_argmax(x: np.ndarray, *, axis: int, keepdims: bool = False) -> np.ndarray:
    """The first index of the maximum; a NaN is the maximum (its first occurrence wins)."""
    return np.argmax(x, axis=axis, keepdims=keepdims)


def cumsum(x: np.ndarray, *, axis: int) -> np.ndarray:
    """Floats summed in float64 (rounded once); integers wrap as in the element type."""
    return np.cumsum(_wide(x), axis=axis)


def conv_transpose2d(
    x: np.ndarray,
    w: np.ndarray,
    *,
    strides: Pair | None = None,
    padding: Pair | None = None,
    output_padding: Pair | None = None,
    dilations: Pair | None = None,
    groups: int = 1,
) -> np.ndarray:
    """torch.nn.functional.conv_transpose2d, NCHW, W as [C, F/groups, KH, KW]: every input
    pixel scatters its weighted kernel into the full output, which padding then crops."""
    x, w = _wide(x), _wide(w)
    (sh, sw), (dh, dw) = strides or (1, 1), dilations or (1, 1)
    top, left, bottom, right = padding or (0, 0, 0, 0)
    extra_h, extra_w = output_padding or (0, 0)
    (n, c, h, wd), (_, fg, kh, kw) = x.shape, w.shape
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + extra_h
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + extra_w
    xg = x.reshape(n, groups, c // groups, h, wd)
    wg = w.reshape(groups, c // groups, fg, kh, kw)
    y = np.zeros((n, groups, fg, full_h, full_w))
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + (h - 1) * sh + 1, sh)
            cols = slice(j * dw, j * dw + (wd - 1) * sw + 1, sw)
            y[..., rows, cols] += np.einsum("ngchw,gcf->ngfhw", xg, wg[..., i, j])
    y = y.reshape(n, groups * fg, full_h, full_w)
    return y[..., top : full_h - bottom, left : full_w - right]


TABLE: dict[str, Callable[..., Any]] = {
    "compare": compare,
    "select": lambda c, t, f: np.where(c, t, f),
    "and": np.bitwise_and,  # logical on bool arrays, bitwise on integers
    "or": np.bitwise_or,
    "not": np.invert,
    "gather": gather,
    "scatter": scatter,
    "iota": iota,
    "reduce_argmax": reduce_argmax,
    "cumsum": cumsum,
    "conv_transpose2d": conv_transpose2d,
}
