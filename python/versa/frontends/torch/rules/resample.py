"""Adaptive max pooling (1-d, 2-d, 3-d) and nearest-exact resampling (gathers with constant
indices); trilinear resampling (a constant matrix per axis).

Adaptive max pooling's windows [floor(i·n/out), ceil((i+1)·n/out)) along each pooled axis differ
in length when out does not divide n: each is read as K_d = the longest length positions, a short
one repeating its last position (a repeat after the original never changes the max, nor the first
argmax in row-major order). The values are separable: a gather and a max along one axis at a
time (even 2-d windows: the pool op). The indices, which only a backward reads (dead code
otherwise), take one gather of whole windows (constant flat positions in the pooled dims) and
an argmax: it always lands on an original element, whose flat position is the window's corner
plus a constant offset of the argmax.
"""

import math

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, op_name, rule
from . import pool, pool_backward
from .common import rank, shape


def _placed(values: np.ndarray, axes: tuple[int, ...], ndim: int) -> np.ndarray:
    """`values` as an `ndim`-d array, its dims at `axes` (1 elsewhere), for outer sums."""
    dims = [1] * ndim
    for axis, n in zip(axes, values.shape, strict=True):
        dims[axis] = n
    return values.reshape(dims)


@rule("torch.aten.adaptive_max_pool1d", "torch.aten.adaptive_max_pool2d", "torch.aten.adaptive_max_pool3d")
def adaptive_max_pool(node: Node, x, output_size):
    """Values and indices (flat positions in the pooled dims; ties: the first in row-major
    order, as torch's kernel)."""
    name = op_name(node.op)
    spatial = 3 if "3d" in name else 2 if "2d" in name else 1
    sizes, outs = shape(x)[-spatial:], node.out.shape[-spatial:]
    lead = list(shape(x)[:-spatial])
    even = spatial == 2 and rank(x) == 4 and not any(n % out for n, out in zip(sizes, outs, strict=True))
    if even:  # the pool op
        kernel = [n // out for n, out in zip(sizes, outs, strict=True)]
        values = vb.max_pool2d(x, kernel=kernel, strides=kernel, padding=[0, 0, 0, 0])
    else:
        values = x
    table, offsets, corners = 0, 0, 0  # [*outs, *K], [*K], [*outs]: outer sums over the axes
    for d, (n, out) in enumerate(zip(sizes, outs, strict=True)):
        stride = math.prod(sizes[d + 1 :])
        lo = np.array([(i * n) // out for i in range(out)])
        length = np.array([-(-((i + 1) * n) // out) for i in range(out)]) - lo
        k = np.arange(int(length.max()))
        taps = lo[:, None] + np.minimum(k[None, :], length[:, None] - 1)  # [out, K_d]
        table = table + _placed(taps * stride, (d, spatial + d), 2 * spatial)
        offsets = offsets + _placed(k * stride, (d,), spatial)
        corners = corners + _placed(lo * stride, (d,), spatial)
        if not even and out != n:  # the max is separable: one axis at a time
            axis = len(lead) + d
            windows = vb.gather(values, node.constant(taps, "i64"), axis=axis)  # [.., out, K_d, ..]
            values = vb.reduce_max(windows, axes=[axis + 1], keepdims=False)
    # the indices (dead code unless a backward reads them): the argmax over whole windows
    width = offsets.size
    flat = vb.reshape(x, [*lead, math.prod(sizes)])
    if all(out == 1 for out in outs):  # global max pooling: every position, in order
        windows = vb.reshape(flat, [*lead, *outs, width])
    else:
        windows = vb.gather(flat, node.constant(table.reshape([*outs, width]), "i64"), axis=len(lead))
    which = vb.reduce_argmax(windows, axis=rank(windows) - 1)
    position = vb.gather(node.constant(offsets.reshape(-1), "i64"), which, axis=0)
    return [values, vb.add(position, node.constant(corners, "i64"))]


def _exact_source(out: int, size: int, scale: float | None) -> np.ndarray:
    """torch's nearest_neighbor_exact_compute_source_index: min(floor((i + 0.5) · s), size - 1)
    with s = 1/scale_factor (or size/out) rounded to f32, the product rounded to f32 as in C++."""
    s = np.float32(1.0 / scale) if scale and scale > 0 else np.float32(size) / np.float32(out)
    product = ((np.arange(out) + 0.5) * np.float64(s)).astype(np.float32)
    return np.minimum(np.floor(product).astype(np.int64), size - 1)


@rule(
    "torch.aten._upsample_nearest_exact1d.vec",
    "torch.aten._upsample_nearest_exact1d",
    "torch.aten._upsample_nearest_exact2d.vec",
    "torch.aten._upsample_nearest_exact2d",
    "torch.aten._upsample_nearest_exact3d.vec",
    "torch.aten._upsample_nearest_exact3d",
)
def upsample_nearest_exact(node: Node, x, output_size, *scales):
    """F.interpolate(mode="nearest-exact"): one gather of constant source rows per resized axis."""
    name = op_name(node.op)  # a torch.operator when torch-mlir has no definition
    spatial = 3 if "3d" in name else 2 if "2d" in name else 1
    if name.endswith(".vec"):
        factors = list(scales[0]) if scales and scales[0] is not None else [None] * spatial
    else:
        factors = [*scales, None, None, None][:spatial]
    for i in range(spatial):
        d = rank(x) - spatial + i
        size, out = shape(x)[d], node.out.shape[d]
        source = _exact_source(out, size, factors[i])
        if out != size or (source != np.arange(size)).any():
            x = vb.gather(x, node.constant(source, "i64"), axis=d)
    return x


@rule("torch.aten.upsample_trilinear3d.vec", "torch.aten.upsample_trilinear3d")
def upsample_trilinear(node: Node, x, output_size, align_corners, *scales):
    """F.interpolate(mode="trilinear"): the linear interpolation matrix along each of 3 axes."""
    given = scales[0] if len(scales) == 1 else list(scales)  # .vec: one list (or None)
    factors = list(given) if given is not None else [None] * 3
    mats = [
        pool._bilinear_matrix(node.out.shape[d], shape(x)[d], bool(align_corners), factors[i])
        for i, d in enumerate(range(rank(x) - 3, rank(x)))
    ]
    return pool_backward.along_axes(node, x, mats)
