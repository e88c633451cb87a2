"""Builders for the window ops (conv2d and the 2-D pools) on top of `linalg_builders`: the
spatial padding and cropping of an activation, the depthwise and grouped convolutions, and
the window counts of average pooling. One place for what the NCHW and NHWC layouts change."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from versa.dialects.shapes import spatial_dims
from versa.mlir import ir, linalg

from .linalg_builders import (
    PARALLEL,
    REDUCTION,
    Shape,
    collapse,
    copy_into,
    extract,
    generic,
    multiply_add,
    pad,
    shape_of,
)


def crop_spatial(x: ir.Value, out: Shape, attrs: dict[str, Any], kernel: Sequence[int]) -> ir.Value:
    """`x` without the trailing rows (columns) no window reads when the output has one row
    (column): the conv strategy leaves a unit output dim untiled, and decomposing to a 1-D conv
    drops it only from an input slice of exactly the rows the window reads. Elsewhere `x` stays
    whole (a view would not be the identity-layout buffer versa-gpu-conv takes)."""
    _, h, w = spatial_dims(attrs["layout"])
    sizes, dilations = list(shape_of(x)), attrs["dilations"]
    for d, i in ((h, 0), (w, 1)):
        if out[d] == 1:
            sizes[d] = min(sizes[d], (kernel[i] - 1) * dilations[i] + 1)
    return x if sizes == list(shape_of(x)) or 0 in sizes else extract(x, [0] * 4, sizes)


def pad_spatial(x: ir.Value, padding: Sequence[int], layout: str, value: ir.Value) -> ir.Value:
    """Pad H and W of a 4-D activation by [top, left, bottom, right]."""
    top, left, bottom, right = padding
    low, high = [0] * 4, [0] * 4
    _, h, w = spatial_dims(layout)
    low[h], low[w], high[h], high[w] = top, left, bottom, right
    return pad(x, low, high, value)


def is_depthwise(x_shape: Shape, out_shape: Shape, attrs: dict[str, Any]) -> bool:
    """One filter per input channel (groups == C == F, C > 1): linalg's depthwise ops."""
    channel = 1 if attrs["layout"] == "NCHW" else 3
    groups = attrs["groups"]
    return groups > 1 and x_shape[channel] == groups == out_shape[channel]


def depthwise_conv(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """linalg.depthwise_conv_2d_nchw_chw / _nhwc_hwc; the filter loses its unit dim
    ([C, 1, KH, KW] → [C, KH, KW]; [KH, KW, 1, C] → [KH, KW, C])."""
    nchw, shape = attrs["layout"] == "NCHW", shape_of(w)
    if nchw:
        w = collapse(w, (shape[0], shape[2], shape[3]), [[0, 1], [2], [3]])
        named = linalg.depthwise_conv_2d_nchw_chw
    else:
        w = collapse(w, (shape[0], shape[1], shape[3]), [[0], [1], [2, 3]])
        named = linalg.depthwise_conv_2d_nhwc_hwc
    return named(x, w, outs=[init], strides=attrs["strides"], dilations=attrs["dilations"])


def conv_per_group(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """A grouped convolution as `groups` named convolutions on channel slices (NCHW x FCHW:
    channels dim 1, filters dim 0; NHWC x HWCF: channels dim 3, filters dim 3), each written
    into its filters' slice of the output: the named ops vectorize, the generic does not."""
    nchw, groups = attrs["layout"] == "NCHW", attrs["groups"]
    channel_dim, filter_dim = (1, 0) if nchw else (3, 3)
    x_shape, w_shape, out_shape = shape_of(x), shape_of(w), shape_of(init)
    per_group_in, per_group_out = x_shape[channel_dim] // groups, out_shape[channel_dim] // groups
    named = linalg.conv_2d_nchw_fchw if nchw else linalg.conv_2d_nhwc_hwcf

    def part(value: ir.Value, shape: Shape, dim: int, size: int, g: int) -> tuple[list[int], ir.Value]:
        offsets, sizes = [0] * len(shape), list(shape)
        offsets[dim], sizes[dim] = g * size, size
        return offsets, extract(value, offsets, sizes)

    y = init
    for g in range(groups):
        _, xg = part(x, x_shape, channel_dim, per_group_in, g)
        _, wg = part(w, w_shape, filter_dim, per_group_out, g)
        offsets, yg = part(y, out_shape, channel_dim, per_group_out, g)
        conv = named(xg, wg, outs=[yg], strides=attrs["strides"], dilations=attrs["dilations"])
        y = copy_into(conv, y, offsets)
    return y


def grouped_conv(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """Loops (n, f, oh, ow, c, kh, kw) over a padded input; c runs over one group's channels,
    so the input channel is (f floordiv filters-per-group) * channels-per-group + c."""
    nchw, groups = attrs["layout"] == "NCHW", attrs["groups"]
    out_channels = shape_of(init)[1 if nchw else 3]
    if not out_channels:  # no filters: nothing to compute (and F/groups = 0 cannot divide f)
        return init
    group_channels = shape_of(w)[1 if nchw else 2]
    n, f, oh, ow, c, kh, kw = (ir.AffineDimExpr.get(i) for i in range(7))
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    channel = ir.AffineExpr.get_floor_div(f, out_channels // groups) * group_channels + c
    h, v = oh * sh + kh * dh, ow * sw + kw * dw
    if nchw:
        exprs = [[n, channel, h, v], [f, c, kh, kw], [n, f, oh, ow]]
    else:
        exprs = [[n, h, v, channel], [kh, kw, c, f], [n, oh, ow, f]]
    maps = [ir.AffineMap.get(7, 0, e) for e in exprs]
    iterators = [PARALLEL] * 4 + [REDUCTION] * 3
    return generic([x, w], [init], maps, iterators, multiply_add)[0]


def window_counts(size: Shape, out: Shape, attrs: dict[str, Any]) -> np.ndarray:
    """Unpadded input elements per pooling window: [OH, OW] (NCHW) or [OH, OW, 1] (NHWC)."""
    _, h_dim, w_dim = spatial_dims(attrs["layout"])
    per_dim = []
    for dim, kernel, stride, low in zip(
        (h_dim, w_dim), attrs["kernel"], attrs["strides"], attrs["padding"][:2], strict=True
    ):
        starts = np.arange(out[dim]) * stride - low
        per_dim.append(np.minimum(starts + kernel, size[dim]) - np.maximum(starts, 0))
    counts = np.outer(*per_dim).astype(np.float32)
    return counts if attrs["layout"] == "NCHW" else counts[..., None]
