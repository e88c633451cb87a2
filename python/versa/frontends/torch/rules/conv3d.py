"""3-d convolutions as 2-d ones (`versa.conv2d`, whose codegen is tuned), channels last.

conv3d(x [N, C, D, H, W], w [O, C/g, kD, kH, kW]) at output depth o reads the input depths
o·sD + kd·dD - pD (kd < kD). Two exact forms:

    temporal  a kernel of one pixel in H and W, unit stride and no padding there (the (k, 1, 1)
              conv of (2+1)-d video networks, pointwise 1x1x1 convs): already a 2-d conv, over
              the plane [D, H·W] with kernel [kD, 1]; nothing is copied but one transpose.
    slices    y = Σ_kd conv2d(x_kd, w[:, :, kd]): x_kd is depth slice kd of the depth-padded
              input (start kd·dD, step sD, Dout long) with the output depth in the batch,
              [N·Dout, H, W, C]. versa-fuse makes the sum and the bias the last conv's epilogue.

Why a sum of kD convs and not one conv2d over the stacked slices ([N·Dout, C·kD, H, W], channel
c·kD + kd, weight [O, C/g·kD, kH, kW]): measured eager/versa (1 thread, Zen 4), sum vs stacked:
8→8 k3 on 2x8x5x13x17 0.97 vs 0.76, 32→32 k3 on 1x32x8x28x28 4.6 vs 4.3, 16→32 k3 s2 0.82 vs
0.77, a 3→16 (3,7,7) s(1,2,2) stem 0.70 vs 0.57, depthwise 32 k3 0.74 vs 0.22. Stacking copies
the input kD times, and turns a depthwise conv into a grouped one with kD channels a group,
which has no fast path. The temporal form against the slices for (3, 1, 1) kernels: 2.0 vs
1.8 (8→8), 3.1 vs 1.7 (32→32).

Channels last: the input is transposed once to [N, D, H, W, C], the convs are NHWC (what
versa-layout picks on CPUs) and the result is transposed back once; between two 3-d convs in a
row the transposes cancel. Written NCHW for versa-layout to convert instead, a small (2+1)-d
video net ran 2.6x eager, not 3.8x: its transpose motion sank the input transpose through the
depth slices (one transpose per slice) and took the pools to NHWC between transposes. On an
NCHW target (GPUs) versa-layout converts these convs as any NHWC conv.

torch.compile's `convolution` of rank 5 comes here from rules/conv.py; its gradients
(`convolution_backward`) go through the same forms in rules/backward.py.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from .common import pairs, rank, shape, transpose

CHANNELS_LAST = [0, 2, 3, 4, 1]  # [N, C, D, H, W] → [N, D, H, W, C]
CHANNELS_FIRST = [0, 4, 1, 2, 3]  # and back


@dataclass(frozen=True)
class Fold:
    """The geometry of a 3-d convolution: its size arguments per spatial axis (D, H, W)."""

    size: tuple[int, int, int]  # the input's D, H, W
    kernel: tuple[int, int, int]
    stride: tuple[int, int, int]
    pads: tuple[tuple[int, int], ...]  # (low, high) per axis
    dilation: tuple[int, int, int]

    @classmethod
    def of(cls, x, weight, stride, padding, dilation) -> "Fold":
        kernel, dilation = tuple(shape(weight)[2:]), tuple(pairs(dilation, 3))
        if padding == "valid":
            pads = ((0, 0),) * 3
        elif padding == "same":  # torch pads an odd total's extra element at the end
            totals = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)]
            pads = tuple((t // 2, t - t // 2) for t in totals)
        else:
            pads = tuple((p, p) for p in pairs(padding, 3))
        return cls(tuple(shape(x)[2:]), kernel, tuple(pairs(stride, 3)), pads, dilation)

    @property
    def depth(self) -> int:
        """The output depth."""
        (lo, hi), k, s, d = self.pads[0], self.kernel[0], self.stride[0], self.dilation[0]
        return (self.size[0] + lo + hi - d * (k - 1) - 1) // s + 1

    @property
    def temporal(self) -> bool:
        return self.kernel[1:] == (1, 1) and self.stride[1:] == (1, 1) and self.pads[1:] == ((0, 0),) * 2

    def attrs(self) -> dict:
        """The 2-d conv's size attributes: over [D, H·W] (temporal) or over [H, W] (slices)."""
        if self.temporal:
            (lo, hi), s, d = self.pads[0], self.stride[0], self.dilation[0]
            return dict(strides=[s, 1], padding=[lo, 0, hi, 0], dilations=[d, 1])
        (top, bottom), (left, right) = self.pads[1:]
        return dict(
            strides=list(self.stride[1:]),
            padding=[top, left, bottom, right],
            dilations=list(self.dilation[1:]),
        )

    def slices(self, x, axis: int) -> Iterator:
        """The kD depth slices of `x` (depth at `axis`) that output depths 0..Dout-1 read."""
        (lo, hi), s, d = self.pads[0], self.stride[0], self.dilation[0]
        zeros = [0] * rank(x)
        if lo or hi:
            x = vb.pad(x, low=_at(zeros, axis, lo), high=_at(zeros, axis, hi))
        for kd in range(self.kernel[0]):
            start, limit = kd * d, kd * d + (self.depth - 1) * s + 1
            if (start, limit, s) == (0, shape(x)[axis], 1):
                yield x
                continue
            starts, limits = _at(zeros, axis, start), _at(list(shape(x)), axis, limit)
            yield vb.slice(x, starts=starts, limits=limits, strides=_at([1] * rank(x), axis, s))


def _at(values: list[int], axis: int, value: int) -> list[int]:
    return [*values[:axis], value, *values[axis + 1 :]]


def _conv_nhwc(x, filters, groups: int, fold: Fold):
    return vb.conv2d(x, filters, groups=groups, layout="NHWC", **fold.attrs())


def _conv3d(x, weight, bias, fold: Fold, groups: int):
    """conv3d of a [N, C, D, H, W] input in the forms above: [N, O, Dout, Ho, Wo]."""
    n, c, _, h, w = shape(x)
    o, cg, kd, kh, kw = shape(weight)
    xt = transpose(x, CHANNELS_LAST)
    wt = transpose(weight, [2, 3, 4, 1, 0])  # [kD, kH, kW, C/g, O]: wt[kd] is tap kd's HWCF filter
    if fold.temporal:
        planes = vb.reshape(xt, [n, fold.size[0], h * w, c])
        y = _conv_nhwc(planes, vb.reshape(wt, [kd, 1, cg, o]), groups, fold)
    else:
        y = None
        for i, part in enumerate(fold.slices(xt, 1)):
            tap = vb.slice(wt, starts=[i, 0, 0, 0, 0], limits=[i + 1, kh, kw, cg, o])
            batch = vb.reshape(part, [n * fold.depth, h, w, c])
            term = _conv_nhwc(batch, vb.reshape(tap, [kh, kw, cg, o]), groups, fold)
            y = term if y is None else vb.add(y, term)
    if bias is not None:  # on the 2-d result: versa-fuse makes it the conv's epilogue
        y = vb.add(y, vb.reshape(bias, [1, 1, 1, o]))
    ho, wo = (h, w) if fold.temporal else shape(y)[1:3]
    return transpose(vb.reshape(y, [n, fold.depth, ho, wo, o]), CHANNELS_FIRST)


@rule("torch.aten.conv3d", "torch.aten.conv3d.padding")
def conv3d(node: Node, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if rank(x) == 4:  # unbatched [C, D, H, W]: a batch of one
        x = vb.reshape(x, [1, *shape(x)])
    if rank(x) != 5:
        raise Unsupported(f"conv3d of a rank-{rank(x)} input")
    y = _conv3d(x, weight, bias, Fold.of(x, weight, stride, padding, dilation), groups)
    return vb.reshape(y, list(node.out.shape)) if tuple(node.out.shape) != shape(y) else y
