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
        taps = [k for k in range(kernel) if (p + low - k * dilation) % stride == 0][::-1]
        rows = [(p + low - k * dilation) // stride for k in taps]  # ascending
        step = rows[1] - rows[0] if len(rows) > 1 else 1
        count = len(range(p, out, stride))
        base = rows[0] if rows else 0
        phase = Phase(p, count, tuple(taps), base, step)
        if phase.reads and (phase.reads.stop <= 0 or phase.reads.start >= size):
            phase = Phase(p, count, (), 0, 1)  # reads padding only: zeros
        result.append(phase)
    return result


def lower_conv_transpose2d(op: ir.OpView, rewriter: Any) -> bool:
    """conv_transpose2d(x, w) → one NHWC versa.conv2d per output phase, interleaved."""
    attrs, (x, w) = dialect.ConvTranspose2dOp.attrs(op), op.operands
    shape = tuple(ir.RankedTensorType(op.results[0].type).shape)
    element = build.element_of(x)
    (_, c, *size), (_, fg, *kernel), (_, f, *out) = build.shape_of(x), build.shape_of(w), shape
    if extents.DYNAMIC in (*size, *out):  # the phases' rows and counts are cut at static indices
        raise extents.Unsupported("dynamic dim H or W of a conv_transpose2d: not supported")
    n = extents.dim(x, 0)  # the batch: the input's (static or dynamic)
    if 0 in shape or 0 in build.shape_of(x):  # nothing to compute, or nothing to read: zeros
        rewriter.replace_op(op, [build.filled((n, *shape[1:]), element, 0.0)])
        return True
    strides, dilations, low = attrs["strides"], attrs["dilations"], attrs["padding"]
    rows, cols = (phases(size[i], kernel[i], strides[i], dilations[i], low[i], out[i]) for i in range(2))
    x = _padded(vb.transpose(x, perm=TO_NHWC), rows, cols)
    groups, convs = attrs["groups"], []
    for ph in rows:
        for pw in cols:
            if ph.count and pw.count and ph.taps and pw.taps:
                convs.append((ph, pw, _phase_conv(x, w, ph, pw, c // groups, fg, groups)))
    if len(convs) == 1 and len(rows) * len(cols) == 1:
        result = convs[0][2]
    else:
        complete = len(convs) == sum(1 for ph in rows for pw in cols if ph.count and pw.count)
        result = (build.empty if complete else _zeros)((n, *out, f), element)
        for ph, pw, y in convs:
            offsets, sizes = [0, ph.offset, pw.offset, 0], [n, ph.count, pw.count, f]
            dynamic = [e for e in sizes if isinstance(e, ir.Value)]
            static = extents.type_shape(sizes)
            result = tensor.insert_slice(y, result, [], dynamic, [], offsets, static, [1, *strides, 1])
    rewriter.replace_op(op, [vb.transpose(result, perm=TO_NCHW)])
    return True


TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _zeros(shape: build.Shape, element: ir.Type) -> ir.Value:
    return build.filled(shape, element, 0.0)


@dataclass(frozen=True)
class _Padded:
    """The NHWC input padded once for every phase: `value`, with `low` rows (columns) before row 0."""

    value: ir.Value
    low: tuple[int, int]


def _padded(x: ir.Value, rows: list[Phase], cols: list[Phase]) -> _Padded:
    """x padded so that every phase's reads lie inside it (one copy, shared by the phases)."""
    size = build.shape_of(x)[1:3]
    low, high = [0, 0, 0, 0], [0, 0, 0, 0]
    for i, dim in enumerate((rows, cols)):
        reads = [p.reads for p in dim if p.reads]
        if reads:
            low[1 + i] = max(0, -min(r.start for r in reads))
            high[1 + i] = max(0, max(r.stop for r in reads) - size[i])
    return _Padded(build.pad(x, low, high, build.scalar(build.element_of(x), 0.0)), (low[1], low[2]))


def _phase_conv(x: _Padded, w: ir.Value, ph: Phase, pw: Phase, cg: int, fg: int, groups: int) -> ir.Value:
    """The stride-1 conv of one phase: its rows and columns of the padded input, its taps."""
    c, n = build.shape_of(x.value)[3], extents.dim(x.value, 0)
    rh, rw = ph.reads, pw.reads
    offsets = [0, rh.start + x.low[0], rw.start + x.low[1], 0]
    sizes = [n, len(rh), len(rw), c]
    whole = sizes[1:] == list(build.shape_of(x.value)[1:])
    window = x.value if whole else build.extract(x.value, offsets, sizes)
    sub = _sub_filter(w, ph.taps, pw.taps, cg, fg, groups)
    return vb.conv2d(window, sub, dilations=[ph.dilation, pw.dilation], groups=groups, layout="NHWC")


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
