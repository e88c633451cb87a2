"""1-d adaptive max pooling and nearest-exact resampling (gathers with constant indices);
trilinear resampling (a constant matrix per axis).

adaptive_max_pool1d's windows [floor(i·L/out), ceil((i+1)·L/out)) differ in length: each is read
as K = the longest length positions, the short ones repeating their last element (a repeat after
the original never changes the max, nor the first argmax), then reduced.
"""

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, op_name, rule
from . import pool, pool_backward
from .common import rank, shape


@rule("torch.aten.adaptive_max_pool1d")
def adaptive_max_pool1d(node: Node, x, output_size):
    """Values and indices (positions along the last dim; ties: the first, as torch's kernel)."""
    size, out = shape(x)[-1], node.out.shape[-1]
    lo = np.array([(i * size) // out for i in range(out)])
    hi = np.array([-(-((i + 1) * size) // out) for i in range(out)])
    width = int((hi - lo).max())
    taps = lo[:, None] + np.minimum(np.arange(width)[None, :], (hi - lo - 1)[:, None])
    windows = vb.gather(x, node.constant(taps, "i64"), axis=rank(x) - 1)  # [..., out, width]
    last = rank(x)
    values = vb.reduce_max(windows, axes=[last], keepdims=False)
    which = vb.reduce_argmax(windows, axis=last)
    return [values, vb.add(which, node.constant(lo, "i64"))]


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
