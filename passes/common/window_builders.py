"""Builders for the window ops (conv2d and the 2-D pools) on top of `linalg_builders`: the
spatial padding and cropping of an activation, the depthwise and grouped convolutions, and
the window counts of average pooling. One place for what the NCHW and NHWC layouts change."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from versa.dialects.shapes import spatial_dims
from versa.mlir import arith, ir, linalg, scf, tensor

from . import extents, window_marks
from .linalg_builders import (
    PARALLEL,
    REDUCTION,
    Shape,
    collapse,
    copy_into,
    element_of,
    empty,
    extract,
    generic,
    multiply_add,
    scalar,
    shape_of,
)


def output_extents(
    x: ir.Value, out: Shape, attrs: dict[str, Any], kernel: Sequence[int]
) -> list[extents.Extent]:
    """The extents of a window op's `out` shape: a dynamic batch is x's, a dynamic H or W the
    window count over x's (padded) extent, `extents.window`."""
    _, h, w = spatial_dims(attrs["layout"])
    known = {0: extents.dim(x, 0)} if extents.unknown(out[0]) else {}
    padding, dilations = attrs["padding"], attrs.get("dilations", (1, 1))
    for d, i in ((h, 0), (w, 1)):
        if extents.unknown(out[d]):
            pads = padding[i] + padding[i + 2]
            known[d] = extents.window(extents.dim(x, d), kernel[i], attrs["strides"][i], pads, dilations[i])
    return extents.sized(out, known)


def crop_spatial(x: ir.Value, out: Shape, attrs: dict[str, Any], kernel: Sequence[int]) -> ir.Value:
    """`x` without the trailing rows (columns) no window reads when the output has one row
    (column): the conv strategy leaves a unit output dim untiled, and decomposing to a 1-D conv
    drops it only from an input slice of exactly the rows the window reads. Elsewhere `x` stays
    whole (a view would not be the identity-layout buffer versa-gpu-conv takes)."""
    _, h, w = spatial_dims(attrs["layout"])
    sizes, dilations = list(shape_of(x)), attrs["dilations"]
    for d, i in ((h, 0), (w, 1)):
        if out[d] == 1 and not extents.unknown(sizes[d]):
            sizes[d] = min(sizes[d], (kernel[i] - 1) * dilations[i] + 1)
    if sizes == list(shape_of(x)) or 0 in sizes:
        return x
    return extract(x, [0] * 4, [extents.dim(x, d) if extents.unknown(s) else s for d, s in enumerate(sizes)])


def pad_spatial(x: ir.Value, padding: Sequence[int], layout: str, value: ir.Value) -> ir.Value:
    """Pad H and W of a 4-D activation by [top, left, bottom, right]: `x` copied into the
    interior of a new tensor whose four border strips alone are filled (filling it all first
    would write the whole padded input once more: a fifth of a depthwise conv's memory traffic)."""
    top, left, bottom, right = padding
    if not any(padding):
        return x
    _, h, w = spatial_dims(layout)
    shape = extents.of(x)  # index values for dynamic dims
    inner_h, inner_w = shape[h], shape[w]
    shape[h], shape[w] = extents.add(inner_h, top + bottom), extents.add(inner_w, left + right)
    xp = empty(tuple(shape), element_of(x))
    strips = (  # (row offset, rows, column offset, columns)
        (0, top, 0, shape[w]),
        (extents.add(top, inner_h), bottom, 0, shape[w]),
        (top, inner_h, 0, left),
        (top, inner_h, extents.add(left, inner_w), right),
    )
    for row, rows, column, columns in strips:
        if not extents.is_zero(rows) and not extents.is_zero(columns):
            offsets, sizes = [0] * 4, list(shape)
            offsets[h], sizes[h], offsets[w], sizes[w] = row, rows, column, columns
            xp = copy_into(linalg.fill(value, outs=[extract(xp, offsets, sizes)]), xp, offsets)
    if 0 in shape_of(x):
        return xp
    offsets = [0] * 4
    offsets[h], offsets[w] = top, left
    return copy_into(x, xp, offsets)


def is_depthwise(x_shape: Shape, out_shape: Shape, attrs: dict[str, Any]) -> bool:
    """One filter per input channel (groups == C == F, C > 1): linalg's depthwise ops."""
    channel = 1 if attrs["layout"] == "NCHW" else 3
    groups = attrs["groups"]
    return groups > 1 and x_shape[channel] == groups == out_shape[channel]


def depthwise_conv(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """linalg.depthwise_conv_2d_nchw_chw / _nhwc_hwc; the filter loses its unit dim
    ([C, 1, KH, KW] → [C, KH, KW]; [KH, KW, 1, C] → [KH, KW, C]). A padded input is not
    copied whole: the output block whose windows lie inside the input reads it in place, and
    the border rows and columns around it read small padded copies (`_regions`). The copy
    would cost a depthwise conv as much as the conv itself (3.5x at 1x56x56x128, 3x3)."""
    nchw, shape = attrs["layout"] == "NCHW", shape_of(w)
    if nchw:
        w = collapse(w, (shape[0], shape[2], shape[3]), [[0, 1], [2], [3]])
        named = linalg.depthwise_conv_2d_nchw_chw
    else:
        w = collapse(w, (shape[0], shape[1], shape[3]), [[0], [1], [2, 3]])
        named = linalg.depthwise_conv_2d_nhwc_hwc

    def conv(xs: ir.Value, ys: ir.Value, border: bool) -> ir.Value:
        y = named(xs, w, outs=[ys], strides=attrs["strides"], dilations=attrs["dilations"])
        if border:
            y.owner.attributes[BORDER] = ir.UnitAttr.get()
        return y

    return _by_regions(x, shape[2:] if nchw else shape[:2], init, attrs, conv)


def _by_regions(
    x: ir.Value, kernel: Sequence[int], init: ir.Value, attrs: dict[str, Any], conv: Any
) -> ir.Value:
    """`conv(input, init, border)` over the whole of `init`, or block by block (`_regions`),
    each block's slice of the output filled and written back in place."""
    regions = _regions(x, kernel, shape_of(init), attrs)
    if regions is None:
        return conv(x, init, False)
    value, dest = _fill_parts(init)
    for offsets, sizes, source, border in regions:
        y = extract(dest, offsets, sizes)
        if value is not None:
            y = linalg.fill(value, outs=[y])
        dest = copy_into(conv(source, y, border), dest, offsets)
    return dest


def _fill_parts(init: ir.Value) -> tuple[ir.Value | None, ir.Value]:
    """(fill value, filled tensor) of an init made by `linalg.fill`, else (None, init)."""
    if _producer(init) == "linalg.fill":
        return init.owner.operands[0], init.owner.operands[1]
    return None, init


def _producer(value: ir.Value) -> str:
    """The name of the op that defines `value` ("" for a block argument)."""
    owner = value.owner
    return "" if isinstance(owner, ir.Block) else getattr(owner, "operation", owner).name


def _regions(
    xp: ir.Value, kernel: Sequence[int], out: Shape, attrs: dict[str, Any]
) -> list[tuple[list[int], list[int], ir.Value, bool]] | None:
    """For an input padded by `pad_spatial`: the output as (offsets, sizes, input, border) blocks, the
    interior (windows inside the unpadded input, read in place) and up to four borders (each
    with a padded copy of the few rows or columns it reads). None when the input is not such
    a padded copy, no window lies inside the input, or the borders hold too many outputs.
    (Borders have few outputs each: codegen/depthwise.py keeps them on one thread.) None too
    for dynamic shapes: the blocks are static."""
    if not extents.is_static([*shape_of(xp), *out]):
        return None
    if not any(attrs["padding"]) or _producer(xp) != "tensor.insert_slice":
        return None  # (an unpadded input may come from an insert_slice too: a concat)
    insert = xp.owner
    x = insert.operands[0]
    low_all = list(ir.DenseI64ArrayAttr(insert.attributes["static_offsets"]))
    _, h, w = spatial_dims(attrs["layout"])
    top, left, bottom, right = attrs["padding"]
    padded = [*shape_of(x)]
    padded[h], padded[w] = padded[h] + top + bottom, padded[w] + left + right
    if (low_all[h], low_all[w]) != (top, left) or padded != list(shape_of(xp)):
        return None  # not pad_spatial's copy (e.g. cropped by crop_spatial)
    bounds = []  # per spatial dim: (low pad, input size, first, end of the interior outputs)
    for i, d in enumerate((h, w)):
        low, size, stride = low_all[d], shape_of(x)[d], attrs["strides"][i]
        reach = (kernel[i] - 1) * attrs["dilations"][i]
        first = min(-(-low // stride), out[d])
        end = max(first, min((low + size - 1 - reach) // stride + 1, out[d]))
        if end <= first:
            return None
        bounds.append((low, size, first, end, stride, reach))
    (_, _, r0, r1, *_), (_, _, c0, c1, *_) = bounds
    if (r1 - r0) * (c1 - c0) * BORDER_SHARE < (BORDER_SHARE - 1) * out[h] * out[w]:
        return None  # small images: the borders (serial, thin) would cost more than the copy
    rows_cols = [((0, r0), (0, out[w])), ((r1, out[h]), (0, out[w]))]
    rows_cols += [((r0, r1), (0, c0)), ((r0, r1), (c0, c1)), ((r0, r1), (c1, out[w]))]
    regions = []
    for (a, b), (c, e) in rows_cols:
        if a == b or c == e:
            continue
        offsets, sizes = [0] * 4, list(out)
        offsets[h], sizes[h], offsets[w], sizes[w] = a, b - a, c, e - c
        source = _window_input(x, bounds, ((a, b), (c, e)), (h, w), attrs["layout"])
        regions.append((offsets, sizes, source, (a, c) != (r0, c0)))
    return regions


BORDER = "versa.border"  # marks a border block's conv: codegen/depthwise.py keeps it on one thread
BORDER_SHARE = 4  # split off borders when they hold at most 1/BORDER_SHARE of the outputs


def _window_input(
    x: ir.Value,
    bounds: list[tuple[int, ...]],
    spans: tuple[tuple[int, int], ...],
    dims: tuple[int, int],
    layout: str,
) -> ir.Value:
    """The padded input that the outputs `spans` (rows, columns) read: the part of `x` under
    their windows, padded with zeros where the windows reach past it."""
    offsets, sizes, padding = [0] * 4, list(shape_of(x)), [0] * 4
    for i, ((low, size, _, _, stride, reach), (a, b), d) in enumerate(zip(bounds, spans, dims, strict=True)):
        start, stop = a * stride - low, (b - 1) * stride + reach + 1 - low  # in unpadded coordinates
        begin, finish = max(start, 0), min(stop, size)
        if begin >= finish:  # windows over the padding alone (a stride past a 1-wide kernel)
            begin, finish = 0, 0
        offsets[d], sizes[d] = begin, finish - begin
        padding[i], padding[i + 2] = (begin - start, stop - finish) if sizes[d] else (stop - start, 0)
    piece = extract(x, offsets, sizes) if sizes != list(shape_of(x)) else x
    return pad_spatial(piece, padding, layout, scalar(element_of(x), 0.0))


def conv_per_group(x: ir.Value, w: ir.Value, init: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """A grouped convolution as one `scf.forall` over (image, output row, group) whose body is
    a named convolution on that group's channel slices (NCHW x FCHW: channels dim 1, filters
    dim 0; NHWC x HWCF: channels dim 3, filters dim 3), filled and written in place. One loop,
    so one transform script and one fork of threads whatever the group count; the named op
    vectorizes (the generic does not). Groups innermost: the input rows one output row reads
    (every channel) stay in cache while all groups use them (a group's channels are a thin
    slice of each cache line). Marked `GROUP_LOOP`: codegen.grouped_conv keeps the body's conv
    on one thread and makes the loop serial where there is a single thread. (The padded input
    stays one copy: cutting off borders as `depthwise_conv` does runs them on one thread,
    which costs a compute-bound conv more than the copy saves.)"""
    nchw, groups = attrs["layout"] == "NCHW", attrs["groups"]
    channel_dim, filter_dim = (1, 0) if nchw else (3, 3)
    row_dim = 2 if nchw else 1
    x_shape, w_shape, out_shape = shape_of(x), shape_of(w), shape_of(init)
    per_group_in, per_group_out = x_shape[channel_dim] // groups, out_shape[channel_dim] // groups
    named = linalg.conv_2d_nchw_fchw if nchw else linalg.conv_2d_nhwc_hwcf
    kernel_rows = w_shape[2 if nchw else 0]
    stride, dilation = attrs["strides"][0], attrs["dilations"][0]
    in_rows = (kernel_rows - 1) * dilation + 1
    value, dest = _fill_parts(init)
    loop = scf.ForallOp([0, 0, 0], [out_shape[0], out_shape[row_dim], groups], [1, 1, 1], [dest])
    loop.attributes[GROUP_LOOP] = ir.UnitAttr.get()
    with ir.InsertionPoint(loop.body):
        n, row, g = loop.induction_variables
        (out,) = loop.inner_iter_args
        image = {0: (n, 1)}
        xg = _slice(x, {**image, channel_dim: (g, per_group_in), row_dim: (row, stride)}, {row_dim: in_rows})
        wg = _slice(w, {filter_dim: (g, per_group_out)}, {})
        out_steps = {**image, channel_dim: (g, per_group_out), row_dim: (row, 1)}
        yg = _slice(out, out_steps, {})
        if value is not None:
            yg = linalg.fill(value, outs=[yg])
        conv = named(xg, wg, outs=[yg], strides=attrs["strides"], dilations=attrs["dilations"])
        offsets, sizes = _slice_bounds(out_shape, out_steps, {})
        with ir.InsertionPoint(loop.terminator().block):
            tensor.parallel_insert_slice(conv, out, offsets, [], [], _DYNAMIC(len(offsets)), sizes, [1] * 4)
    return loop.results[0]


GROUP_LOOP = "versa.group_loop"


def _DYNAMIC(rank: int) -> list[int]:
    return [ir.ShapedType.get_dynamic_stride_or_offset()] * rank


def _slice_bounds(
    shape: Shape, steps: dict[int, tuple[ir.Value, int]], sizes: dict[int, int]
) -> tuple[list[ir.Value], list[int]]:
    """Offsets (index values: iv * step along `steps`' dims, else 0) and static sizes (the
    step of a stepped dim unless `sizes` names it, else the whole dim)."""
    index = ir.IndexType.get()
    zero = arith.constant(index, 0)
    offsets, out = [], []
    for d, extent in enumerate(shape):
        if d in steps:
            iv, step = steps[d]
            offsets.append(arith.muli(iv, arith.constant(index, step)) if step != 1 else iv)
        else:
            offsets.append(zero)
        out.append(sizes.get(d, steps[d][1] if d in steps else extent))
    return offsets, out


def _slice(value: ir.Value, steps: dict[int, tuple[ir.Value, int]], sizes: dict[int, int]) -> ir.Value:
    """`tensor.extract_slice` of `value` at dynamic offsets with static sizes (`_slice_bounds`)."""
    offsets, static_sizes = _slice_bounds(shape_of(value), steps, sizes)
    result = ir.RankedTensorType.get(static_sizes, element_of(value))
    rank = len(static_sizes)
    return tensor.extract_slice(result, value, offsets, [], [], _DYNAMIC(rank), static_sizes, [1] * rank)


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
    y = generic([x, w], [init], maps, iterators, multiply_add)[0]
    kernel = shape_of(w)[2:] if nchw else shape_of(w)[:2]
    window_marks.mark(y.owner, attrs, kernel)  # versa-static-tiles cuts a dynamic one
    return y


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
