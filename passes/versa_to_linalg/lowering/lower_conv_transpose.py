"""convert-versa-to-linalg, continued: conv_transpose2d as s_h * s_w stride-1 convolutions.

The textbook lowering (a stride-1 conv over the input spread out by the stride, with zeros
between elements) spends (s² - 1) / s² of its multiply-adds on those zeros. The sub-pixel
(polyphase) form does none: along one dim, output o = q * s + p (phase p in [0, s)) gathers
only the taps k with k * dilation ≡ p + pad_low (mod s), reading input q + (p + pad_low -
k * dilation) / s. Those taps step by s / g (g = gcd(s, dilation)) and their input offsets
by dilation / g, so each phase is a plain `versa.conv2d` (stride 1, dilation dilation / g) of
the original input with a flipped sub-filter. Phases without taps are zeros; the phases'
results are interleaved with strided `tensor.insert_slice`s. With stride 1 there is one
phase: the flipped filter over the padded input.

    %y = "versa.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>}
         : (tensor<1x8x5x5xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x10x10xf32>

becomes four 1x1 `versa.conv2d`s of transpose(%x) to NHWC (filters: one tap each), each
inserted into a 1x10x10x4 tensor at offsets [0, ph, pw, 0] with strides [1, 2, 2, 1], which
is transposed back to NCHW. The phase convs are NHWC whatever the target (versa-layout has
run by now): NHWC is the CPU conv strategy's fast layout, and there the interleave copies
whole channel vectors where NCHW would scatter single elements (2x faster end to end for a
k2s2 convT on x86). The input is padded once for all phases, which read views of it (a pad
per phase, through conv2d's padding, was 1.2-1.3x slower for k4s2p1; the views are not the
identity-layout buffers versa-gpu-conv takes, so GPUs run those convs as generic loops). A
constant filter is cut into the phases' filters at compile time.

A dynamic H or W keeps the same phases: a phase's taps, first row and step depend on the
stride, filter and padding only, and its count is the input's size plus a constant
(out = H * stride + a constant, so ceil((out - p) / stride) = H + ceil((constant - p) / stride)):
`grows` phases hold that constant, and so does the padding past the input's end. The phase
convs are then named convs with a dynamic H/W (versa-static-tiles cuts them into tiles), and
a phase that reads only padding at some size computes zeros over the (static) padding.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from versa.dialects import builders as vb
from versa.dialects import versa as dialect
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir, tensor

from ...common import extents
from ...common import linalg_builders as build
from ...common.matching import numpy_dtype_of


@dataclass(frozen=True)
class Phase:
    """Outputs o = offset + q * stride (q < count) along one dim: out[q] = sum over j of
    x[q + base + j * dilation] * w[taps[j]] (taps in reading order: the filter flipped)."""

    offset: int
    count: int
    taps: tuple[int, ...]
    base: int
    dilation: int
    grows: bool = False  # count is the input's (dynamic) size plus `count`

    def rows(self, size: extents.Extent) -> extents.Extent:
        """How many output rows the phase computes, for an input of `size` rows."""
        return extents.add(size, self.count) if self.grows else self.count

    @property
    def live(self) -> bool:
        """Whether the phase reads anything (a dynamic count may still be 0 at some size)."""
        return bool(self.taps) and (self.grows or self.count > 0)

    def past_end(self, size: int) -> int:
        """How far the phase reads past the input's last row (its size ignored when `grows`)."""
        span = (len(self.taps) - 1) * self.dilation
        return self.base + self.count + span - (0 if self.grows else size)

    @property
    def reads(self) -> range:
        """The input rows (padding included) the phase reads."""
        if not self.taps or not self.count:
            return range(0)
        return range(self.base, self.base + self.count + (len(self.taps) - 1) * self.dilation)


def phases(size: int, kernel: int, stride: int, dilation: int, low: int, out: int) -> list[Phase]:
    """The `stride` phases of one spatial dim: input `size`, filter `kernel`, `low` padding
    (crops the output's start), `out` output rows."""
    result = []
    for p in range(stride):
        taps, base, step = _taps(p, kernel, stride, dilation, low)
        phase = Phase(p, len(range(p, out, stride)), taps, base, step)
        if phase.reads and (phase.reads.stop <= 0 or phase.reads.start >= size):
            phase = Phase(p, phase.count, (), 0, 1)  # reads padding only: zeros
        result.append(phase)
    return result


def dynamic_phases(kernel: int, stride: int, dilation: int, low: int, excess: int) -> list[Phase]:
    """The phases of a dynamic dim whose output has `excess` rows more than size * stride:
    each counts size + ceil((excess - p) / stride) rows (never negative for a positive output)."""
    return [
        Phase(p, -((p - excess) // stride), *_taps(p, kernel, stride, dilation, low), True)
        for p in range(stride)
    ]


def _taps(p: int, kernel: int, stride: int, dilation: int, low: int) -> tuple[tuple[int, ...], int, int]:
    """Phase p's taps (the filter flipped), the input row its first output reads, the step."""
    taps = [k for k in range(kernel) if (p + low - k * dilation) % stride == 0][::-1]
    rows = [(p + low - k * dilation) // stride for k in taps]  # ascending
    return tuple(taps), rows[0] if rows else 0, rows[1] - rows[0] if len(rows) > 1 else 1


def lower_conv_transpose2d(op: ir.OpView, rewriter: Any) -> bool:
    """conv_transpose2d(x, w) → one NHWC versa.conv2d per output phase, interleaved."""
    attrs, (x, w) = dialect.ConvTranspose2dOp.attrs(op), op.operands
    shape = tuple(ir.RankedTensorType(op.results[0].type).shape)
    element = build.element_of(x)
    (_, c, *size), (_, fg, *kernel), (_, f, *out) = build.shape_of(x), build.shape_of(w), shape
    n = extents.dim(x, 0)  # the batch: the input's (static or dynamic)
    if 0 in shape or 0 in build.shape_of(x):  # nothing to compute, or nothing to read: zeros
        rewriter.replace_op(op, [build.filled((n, *shape[1:]), element, 0.0)])
        return True
    strides = attrs["strides"]
    rows, cols = (_dim_phases(attrs, size[i], kernel[i], out[i], i) for i in range(2))
    sizes = (extents.dim(x, 2), extents.dim(x, 3))
    out = [e if e != extents.DYNAMIC else _out(attrs, sizes[i], kernel[i], i) for i, e in enumerate(out)]
    x = _padded(vb.transpose(x, perm=TO_NHWC), rows, cols, sizes)
    groups, convs = attrs["groups"], []
    for ph in rows:
        for pw in cols:
            if ph.live and pw.live:
                convs.append((ph, pw, _phase_conv(x, w, ph, pw, c // groups, fg, groups)))
    if len(convs) == 1 and len(rows) * len(cols) == 1:
        result = convs[0][2]
    else:
        counted = sum(1 for ph in rows for pw in cols if _counts(ph) and _counts(pw))
        result = (build.empty if len(convs) == counted else _zeros)((n, *out, f), element)
        for ph, pw, y in convs:
            offsets, counts = [0, ph.offset, pw.offset, 0], [n, *extents.of(y)[1:3], f]  # its rows
            dynamic = [e for e in counts if isinstance(e, ir.Value)]
            static = extents.type_shape(counts)
            result = tensor.insert_slice(y, result, [], dynamic, [], offsets, static, [1, *strides, 1])
    rewriter.replace_op(op, [vb.transpose(result, perm=TO_NCHW)])
    return True


TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _dim_phases(attrs: dict[str, Any], size: int, kernel: int, out: int, i: int) -> list[Phase]:
    """The phases of spatial dim i (0: H, 1: W), static or dynamic."""
    stride, dilation, low = attrs["strides"][i], attrs["dilations"][i], attrs["padding"][i]
    if extents.DYNAMIC not in (size, out):
        return phases(size, kernel, stride, dilation, low, out)
    return dynamic_phases(kernel, stride, dilation, low, _excess(attrs, kernel, i))


def _excess(attrs: dict[str, Any], kernel: int, i: int) -> int:
    """out - size * stride along dim i: (size - 1) * stride - low - high + span + extra + 1
    (the dialect's rule, `shapes.conv_transpose2d`)."""
    span = attrs["dilations"][i] * (kernel - 1)
    padding = attrs["padding"][i] + attrs["padding"][i + 2]
    return -attrs["strides"][i] - padding + span + attrs["output_padding"][i] + 1


def _out(attrs: dict[str, Any], size: extents.Extent, kernel: int, i: int) -> extents.Extent:
    """The output extent of dim i for an input of `size` (an index value when dynamic)."""
    return extents.add(extents.mul(size, attrs["strides"][i]), _excess(attrs, kernel, i))


def _counts(phase: Phase) -> bool:
    """Whether the phase has output rows to fill (a growing one: at most sizes)."""
    return phase.grows or phase.count > 0


def _zeros(shape: build.Shape, element: ir.Type) -> ir.Value:
    return build.filled(shape, element, 0.0)


@dataclass(frozen=True)
class _Padded:
    """The NHWC input padded once for every phase: `value`, with `low` rows (columns) before row 0."""

    value: ir.Value
    low: tuple[int, int]
    high: tuple[int, int]
    sizes: tuple[extents.Extent, extents.Extent]  # the input's H and W before padding


def _padded(x: ir.Value, rows: list[Phase], cols: list[Phase], sizes) -> _Padded:
    """x padded so that every phase's reads lie inside it (one copy, shared by the phases)."""
    size = build.shape_of(x)[1:3]
    low, high = [0, 0, 0, 0], [0, 0, 0, 0]
    for i, dim in enumerate((rows, cols)):
        live = [p for p in dim if p.live]
        if live:
            low[1 + i] = max(0, -min(p.base for p in live))
            high[1 + i] = max(0, max(p.past_end(size[i]) for p in live))
    padded = build.pad(x, low, high, build.scalar(build.element_of(x), 0.0))
    return _Padded(padded, (low[1], low[2]), (high[1], high[2]), tuple(sizes))


def _phase_conv(x: _Padded, w: ir.Value, ph: Phase, pw: Phase, cg: int, fg: int, groups: int) -> ir.Value:
    """The stride-1 conv of one phase: its rows and columns of the padded input, its taps."""
    c, n = build.shape_of(x.value)[3], extents.dim(x.value, 0)
    offsets = [0, ph.base + x.low[0], pw.base + x.low[1], 0]
    reads = [_reads(phase, x, i) for i, phase in enumerate((ph, pw))]
    whole = all(offsets[1 + i] == 0 and reads[i][1] for i in range(2))
    window = x.value if whole else build.extract(x.value, offsets, [n, reads[0][0], reads[1][0], c])
    sub = _sub_filter(w, ph.taps, pw.taps, cg, fg, groups)
    return vb.conv2d(window, sub, dilations=[ph.dilation, pw.dilation], groups=groups, layout="NHWC")


def _reads(phase: Phase, x: _Padded, i: int) -> tuple[extents.Extent, bool]:
    """The rows (columns) phase reads along dim i of the padded input, and whether they reach
    its end (a window from row 0 that does is the whole input)."""
    if not phase.grows:
        return len(phase.reads), phase.reads.stop + x.low[i] == build.shape_of(x.value)[1 + i]
    return extents.add(x.sizes[i], phase.past_end(0) - phase.base), phase.past_end(0) == x.high[i]


def _sub_filter(w: ir.Value, rows: tuple, cols: tuple, cg: int, fg: int, groups: int) -> ir.Value:
    """[C, F/groups, KH, KW] → conv2d's NHWC filter [len(rows), len(cols), C/groups, F] of the
    taps `rows` x `cols` (each an arithmetic sequence, descending: the filter flipped):
    out[i, j, c, f] = w[(f floordiv F/groups) * C/groups + c, f mod F/groups, rows[i], cols[j]].
    A constant filter (trained weights) is cut at compile time, not copied on every call."""
    array = _constant(w)
    if array is not None:
        taps = array.reshape(groups, cg, fg, *array.shape[2:])[..., list(rows), :][..., list(cols)]
        return build.dense(taps.transpose(3, 4, 1, 0, 2).reshape(len(rows), len(cols), cg, groups * fg))
    out = build.empty((len(rows), len(cols), cg, fg * groups), build.element_of(w))
    i, j, c, f = (ir.AffineDimExpr.get(d) for d in range(4))
    channel = c if groups == 1 else ir.AffineExpr.get_floor_div(f, fg) * cg + c
    filter_ = f if groups == 1 else f % fg
    taps = [_sequence(rows, i), _sequence(cols, j)]
    maps = [ir.AffineMap.get(4, 0, [channel, filter_, *taps]), ir.AffineMap.get_identity(4)]
    return build.generic([w], [out], maps, [build.PARALLEL] * 4, lambda v, _: [v])[0]


def _constant(w: ir.Value) -> np.ndarray | None:
    """The elements of a constant filter (versa's, or arith's once lowered), if NumPy holds them."""
    if not isinstance(w, ir.OpResult) or w.owner.operation.name not in ("versa.constant", "arith.constant"):
        return None
    attr = w.owner.operation.attributes["value"]
    dtype = numpy_dtype_of(attr.type.element_type) if isinstance(attr, ir.DenseElementsAttr) else None
    return None if dtype is None else elements_to_numpy(attr).astype(dtype, copy=False)  # splats: f64


def _sequence(taps: tuple[int, ...], d: ir.AffineExpr) -> ir.AffineExpr:
    """taps[d] as an affine expression of the loop d (taps step evenly)."""
    step = taps[1] - taps[0] if len(taps) > 1 else 0
    return ir.AffineConstantExpr.get(taps[0]) + d * step


PATTERNS = [(dialect.ConvTranspose2dOp, lower_conv_transpose2d)]
