"""2-D pooling with padding, without a padded copy of the whole input.

Padding an activation for pooling copies all of it into a larger buffer: for a max pool that
is more memory traffic than the pool itself, and the copy doubles the working set (8x64x112²:
17 ms padded vs 5.7 ms for the same pool on unpadded data, one thread). Instead the output is
cut, per spatial axis, into the windows that overlap the padding (the first and last few
outputs) and the interior ones that lie inside the input. The interior block, nearly all of
the output, pools a view of the input directly; only the thin border blocks pool a padded
copy of the few input rows or columns they read.

    output rows  [0, lo) | [lo, hi) | [hi, OH)     (the same cut along the columns)
    interior rows: lo = ceil(top / s), hi = floor((H - K + top) / s) + 1

Each block is a `linalg.pooling_*` op writing into its slice of one filled output tensor, so
bufferization computes every block in place.
"""

from collections.abc import Sequence
from typing import Any

from versa.dialects.shapes import spatial_dims
from versa.mlir import ir, linalg

from . import linalg_builders as build


def _segments(size: int, out: int, kernel: int, stride: int, low: int) -> list[tuple[int, int]]:
    """The output index ranges along one axis: before, inside and after the interior."""
    lo = min(-(-low // stride), out)
    hi = max(lo, min((size - kernel + low) // stride + 1, out))
    return [(a, b) for a, b in ((0, lo), (lo, hi), (hi, out)) if b > a]


def pool2d(x: ir.Value, shape: Sequence[int], attrs: dict[str, Any], kind: str, init: ir.Value) -> ir.Value:
    """The pooling (`kind` "max" or "sum") of the 4-D `x` into a `shape` result, padded with
    `init` as `attrs` says, block by block (see the module docstring)."""
    _, h, w = spatial_dims(attrs["layout"])
    element, size = build.element_of(x), build.shape_of(x)
    kernel, strides, padding = attrs["kernel"], attrs["strides"], attrs["padding"]
    named = getattr(linalg, f"pooling_{attrs['layout'].lower()}_{kind}")
    window = build.empty(tuple(kernel), element)
    y = build.filled(tuple(shape), element, init)
    axes = [(h, 0), (w, 1)]  # (dim, index into kernel/strides/padding)
    cuts = [_segments(size[d], shape[d], kernel[i], strides[i], padding[i]) for d, i in axes]
    for rows in cuts[0]:
        for cols in cuts[1]:
            offsets, sizes = [0] * 4, list(size)
            out_offsets, out_sizes = [0] * 4, list(shape)
            low, high = [0] * 4, [0] * 4
            for (d, i), (o0, o1) in zip(axes, (rows, cols), strict=True):
                first = o0 * strides[i] - padding[i]  # input index of the block's first tap
                end = (o1 - 1) * strides[i] - padding[i] + kernel[i]
                start, stop = max(first, 0), max(min(end, size[d]), max(first, 0))
                offsets[d], sizes[d] = start, stop - start
                low[d], high[d] = start - first, end - stop
                out_offsets[d], out_sizes[d] = o0, o1 - o0
            block = build.pad(build.extract(x, offsets, sizes), low, high, init)
            outs = build.extract(y, out_offsets, out_sizes)
            pooled = named(block, window, outs=[outs], strides=strides, dilations=[1, 1])
            y = build.copy_into(pooled, y, out_offsets)
    return y
