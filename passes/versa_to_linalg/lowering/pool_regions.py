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

Each block writes its slice of one output tensor, so bufferization computes every block in
place. A block is a `linalg.pooling_*` op, or with `views` (the CPU pipelines at O2+) the
interior block is a few plain reductions over reshaped views of the input, which vectorize
with contiguous loads (see `_window_views`).
"""

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from versa.dialects.shapes import spatial_dims
from versa.mlir import arith, ir, linalg

from ...common import extents
from ...common import linalg_builders as build
from ...common.window_builders import pad_spatial
from . import lower_quant

# A max that returns NaN when either operand is (as PyTorch's pools do) but may order -0 and +0
# either way: 3 instructions on x86 rather than 6 (sign tests and blends), as in pool_kernels.
NO_SIGNED_ZEROS = functools.partial(ir.Attribute.parse, "#arith.fastmath<nsz>")

Axes = list[tuple[int, int]]  # (dim of the 4-D tensor, index into kernel/strides/padding)


def _segments(size: int, out: int, reach: int, stride: int, low: int) -> list[tuple[int, int]]:
    """The output index ranges along one axis: before, inside and after the interior, where
    a window reads `reach` input elements from its first tap on."""
    lo = min(-(-low // stride), out)
    hi = max(lo, min((size - reach + low) // stride + 1, out))
    return [(a, b) for a, b in ((0, lo), (lo, hi), (hi, out)) if b > a]


def _groups(kernel: int, stride: int) -> int:
    """Q: the window's taps t = q*s + r (r < s) fall into this many groups of whole strides."""
    return -(-kernel // stride)


def pool2d(
    x: ir.Value, shape: build.Extents, attrs: dict[str, Any], kind: str, init: ir.Value, views: bool = False
) -> ir.Value:
    """The pooling (`kind` "max" or "sum") of the 4-D `x` into a `shape` result, padded with
    `init` as `attrs` says, block by block (see the module docstring). H and W are static;
    batch and channels may be dynamic (index values in `shape`)."""
    _, h, w = spatial_dims(attrs["layout"])
    element, size = build.element_of(x), extents.of(x)
    kernel, strides, padding = attrs["kernel"], attrs["strides"], attrs["padding"]
    window = build.empty(tuple(kernel), element)
    y = build.empty(tuple(shape), element) if views else build.filled(tuple(shape), element, init)
    axes: Axes = [(h, 0), (w, 1)]
    # A window view reads whole strides: Q*s elements from the first tap.
    reach = [_groups(kernel[i], strides[i]) * strides[i] if views else kernel[i] for _, i in axes]
    cuts = [_segments(size[d], shape[d], reach[i], strides[i], padding[i]) for d, i in axes]
    for rows in cuts[0]:
        for cols in cuts[1]:
            offsets, sizes = [0] * 4, list(size)
            out_offsets, out_sizes = [0] * 4, list(shape)
            low, high = [0] * 4, [0] * 4
            for (d, i), (o0, o1) in zip(axes, (rows, cols), strict=True):
                first = o0 * strides[i] - padding[i]  # input index of the block's first tap
                end = (o1 - 1) * strides[i] - padding[i] + reach[i]
                start, stop = max(first, 0), max(min(end, size[d]), max(first, 0))
                offsets[d], sizes[d] = start, stop - start
                low[d], high[d] = start - first, end - stop
                out_offsets[d], out_sizes[d] = o0, o1 - o0
            if views:  # each block fills its own slice: fused into its tiles
                outs = linalg.fill(init, outs=[build.extract(y, out_offsets, out_sizes)])
                if any(low) or any(high):  # a border block: a padded copy of what it reads
                    x_block, offsets = build.pad(build.extract(x, offsets, sizes), low, high, init), [0] * 4
                else:
                    x_block = x
                pooled = _window_views(x_block, offsets, out_sizes, axes, attrs, kind, outs)
            else:
                named = getattr(linalg, f"pooling_{attrs['layout'].lower()}_{kind}")
                block = build.pad(build.extract(x, offsets, sizes), low, high, init)
                outs = build.extract(y, out_offsets, out_sizes)
                pooled = named(block, window, outs=[outs], strides=strides, dilations=[1, 1])
            y = build.copy_into(pooled, y, out_offsets)
    return y


def _window_views(
    x: ir.Value,
    offsets: Sequence[int],
    out: Sequence[int],
    axes: Axes,
    attrs: dict[str, Any],
    kind: str,
    acc: ir.Value,
) -> ir.Value:
    """Pool the `out`-shaped block whose first window starts at `offsets` in `x` (its windows
    read Q*s elements per axis inside x) as one plain reduction. The tap t = q*s + r of output
    o reads input o*s + q*s + r, so the input from q*s on, reshaped [.., O, s, ..], holds it at
    [o, r]: one view per group (qh, qw), all reduced over (rh, rw) at once, taps past the
    kernel (q*s + r >= K) masked with the identity.

        y[n, c, oh, ow] = max over rh, rw, q of  view_q[n, c, oh, rh, ow, rw]      (NCHW)

    Every map is the identity or a projection, so the vectorizer reads each input row
    contiguously and de-interleaves the strides in registers (`codegen/window.py`); a named
    pooling op's strided reads leave LLVM short, strided loops (3x slower)."""
    kernel, strides, size = attrs["kernel"], attrs["strides"], extents.of(x)
    shape: list[extents.Extent] = []
    reassociation: list[list[int]] = []
    tap_dims: dict[int, int] = {}  # dim of x → its r dim in the views
    for d in range(4):
        step = next((i for dim, i in axes if dim == d), None)
        if step is None:
            reassociation.append([len(shape)])
            shape.append(size[d])
        else:
            reassociation.append([len(shape), len(shape) + 1])
            tap_dims[d] = len(shape) + 1
            shape += [out[d], strides[step]]
    views, limits = [], []  # per view: {r dim: r < limit} where taps past the kernel are masked
    per_axis = [[(q, i, d) for q in range(_groups(kernel[i], strides[i]))] for d, i in axes]
    for groups in itertools.product(*per_axis):
        starts, lengths = list(offsets), list(size)
        limit = {}
        for q, i, d in groups:
            starts[d] += q * strides[i]
            lengths[d] = out[d] * strides[i]
            if kernel[i] - q * strides[i] < strides[i]:
                limit[tap_dims[d]] = kernel[i] - q * strides[i]
        views.append(build.expand(build.extract(x, starts, lengths), tuple(shape), reassociation))
        limits.append(limit)
    element, rank = build.element_of(x), len(shape)
    combine = _combiner(kind, element)
    kept = [d for d in range(rank) if d not in tap_dims.values()]
    iterators = [build.REDUCTION if d in tap_dims.values() else build.PARALLEL for d in range(rank)]
    maps = [ir.AffineMap.get_identity(rank)] * len(views) + [build.dims_map(rank, kept)]

    def body(*args: ir.Value) -> list[ir.Value]:
        identity = build.lowest(element) if kind == "max" else build.scalar(element, 0.0)  # ui8: 0
        total = None
        for value, limit in zip(args[:-1], limits, strict=True):
            for dim, taps in limit.items():
                index = linalg.IndexOp(dim).result
                inside = arith.cmpi(arith.CmpIPredicate.ult, index, arith.constant(index.type, taps))
                value = arith.select(inside, value, identity)
            total = value if total is None else combine(total, value)
        return [combine(total, args[-1])]

    return build.generic(views, [acc], maps, iterators, body)[0]


def _combiner(kind: str, element: ir.Type):
    """The fold of `kind`: "sum" (floats), "max" (floats: NaN-propagating; integers signed) or
    "max_unsigned" (ui8 bytes, signless i8 here)."""
    if kind == "sum":
        return arith.addf
    if kind == "max_unsigned":
        return arith.maxui
    return (
        functools.partial(arith.maximumf, fastmath=NO_SIGNED_ZEROS())
        if build.is_float(element)
        else arith.maxsi
    )


# ----------------------------------------------------------------------------- integers


def integer_max_pool2d(
    x: ir.Value, result: ir.Type, shape: build.Extents, attrs: dict[str, Any], views: bool
) -> ir.Value:
    """max_pool2d of i8 or ui8 (bytes viewed as signless i8: `lower_quant.signless`), padded
    with the type's minimum (-128; 0 unsigned). ui8 needs an unsigned max, which the interior
    views fold with `arith.maxui`; the named ops have no NCHW unsigned form (nor do the
    strategies and versa-static-tiles take NHWC's), so elsewhere the bytes are flipped, x ^ 0x80
    (the order of ui8 becomes that of i8), pooled signed and flipped back: two byte passes,
    on paths (O0/O1 NHWC, dynamic H or W, the GPU) that the CPU's NCHW kernels do not take."""
    _, h, w = spatial_dims(attrs["layout"])
    unsigned, x = lower_quant.is_unsigned(x), lower_quant.signless(x)
    i8 = build.element_of(x)
    dynamic = extents.DYNAMIC in (build.shape_of(x)[h], build.shape_of(x)[w])
    if unsigned and views and not dynamic:
        y = pool2d(x, shape, attrs, "max_unsigned", build.scalar(i8, 0), views=True)
        return lower_quant.resigned(y, result)
    x = _flip(x) if unsigned else x
    if dynamic:
        y = dynamic_pool2d(x, shape, attrs, "max", build.lowest(i8))
    else:
        y = pool2d(x, shape, attrs, "max", build.lowest(i8), views)
    return lower_quant.resigned(_flip(y) if unsigned else y, result)


def _flip(x: ir.Value) -> ir.Value:
    """x ^ 0x80 on i8 bytes: unsigned order to signed order and back."""
    i8 = build.element_of(x)
    return build.elementwise([x], build.shape_of(x), [i8], lambda v: [arith.xori(v, build.scalar(i8, -128))])[
        0
    ]


# ----------------------------------------------------------------------------- dynamic H or W


def dynamic_pool2d(
    x: ir.Value, shape: build.Extents, attrs: dict[str, Any], kind: str, init: ir.Value
) -> ir.Value:
    """The pool of `x` with a dynamic H or W: one named pooling op over x padded with `init`
    (the blocks above are cut at static indices). versa-static-tiles cuts it into static
    tiles of output rows and columns (`tile_slicing`'s windows), the reads padded in place."""
    element = build.element_of(x)
    named = getattr(linalg, f"pooling_{attrs['layout'].lower()}_{kind}")
    padded = pad_spatial(x, attrs["padding"], attrs["layout"], init)
    window = build.empty(tuple(attrs["kernel"]), element)
    y = build.filled(tuple(shape), element, init)
    return named(padded, window, outs=[y], strides=attrs["strides"], dilations=[1, 1])


def dynamic_average(y: ir.Value, x: ir.Value, attrs: dict[str, Any]) -> ir.Value:
    """`y` (window sums) divided by each window's count of input elements, H and W read off
    `x` at run time: count = (min(o*s - top + K, H) - max(o*s - top, 0)) per axis (the static
    lowering's `window_counts`), one 1-D tensor per axis, their product per output."""
    _, h, w = spatial_dims(attrs["layout"])
    element, out = build.element_of(y), extents.of(y)
    counts = []
    for d, i in ((h, 0), (w, 1)):
        size = extents.index(extents.dim(x, d))
        kernel, stride, low = attrs["kernel"][i], attrs["strides"][i], attrs["padding"][i]

        def count(_: ir.Value, size=size, kernel=kernel, stride=stride, low=low) -> list[ir.Value]:
            index = ir.IndexType.get()
            start = arith.subi(
                arith.muli(linalg.IndexOp(0).result, arith.constant(index, stride)),
                arith.constant(index, low),
            )
            end = arith.minsi(arith.addi(start, arith.constant(index, kernel)), size)
            inside = arith.subi(end, arith.maxsi(start, arith.constant(index, 0)))
            return [build.convert(arith.index_cast(ir.IntegerType.get_signless(64), inside), element)]

        ones = ir.AffineMap.get_identity(1)
        counts.append(
            build.generic([], [build.empty((out[d],), element)], [ones], [build.PARALLEL], count)[0]
        )
    maps = [
        ir.AffineMap.get_identity(4),
        build.dims_map(4, [h]),
        build.dims_map(4, [w]),
        ir.AffineMap.get_identity(4),
    ]

    def divide(total: ir.Value, rows: ir.Value, cols: ir.Value, _: ir.Value) -> list[ir.Value]:
        return [arith.divf(total, arith.mulf(rows, cols))]

    return build.generic(
        [y, *counts], [build.empty(tuple(out), element)], maps, [build.PARALLEL] * 4, divide
    )[0]
