"""3-d pooling as 2-d pooling (`versa.max_pool2d` / `versa.avg_pool2d`): one pass over H, W and
one over the depth, each a reshape away from a 2-d pool.

A maximum over a [kD, kH, kW] box is the maximum over kD depths of the maxima over [kH, kW]:

    x [N, C, D, H, W] ─reshape→ [N, C·D, H, W] ─pool2d [kH, kW]→ [N, C·D, Ho, Wo]
      ─reshape→ [N, C, D, Ho·Wo] ─pool2d [kD, 1]→ [N, C, Dout, Ho·Wo] ─reshape→ [N, C, Dout, Ho, Wo]

An average is separable the same way: torch's divisor is a product of per-axis counts (the
window clipped to the padded input with count_include_pad, to the input without), and versa's
average divides by the window clipped to its input, pass by pass. So count_include_pad pads
with zeros first, and the rest (ceil_mode's windows past the end) stays the pool's padding, out
of the count; a divisor_override d is the average over zero-padded windows times kD·kH·kW / d.
The pass that shrinks the tensor more runs first. torch.compile's max_pool3d_with_indices gets
its indices separably too (below). Dilated pooling is refused (versa's pools have no dilation):
torch-mlir's lowering takes it.
"""

import math
from dataclasses import dataclass

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from . import backward, pool, pool_backward
from .common import element, pairs, rank, shape

POOLS = {"max": vb.max_pool2d, "avg": vb.avg_pool2d}


@dataclass(frozen=True)
class Window:
    """A 3-d pooling window per spatial axis (D, H, W), with the output torch declared."""

    kernel: list[int]
    stride: list[int]
    low: list[int]
    high: list[int]  # the padding, and ceil_mode's extra windows past the end
    out: list[int]

    @classmethod
    def of(cls, node: Node, x, kernel, stride, padding, dilation=1) -> "Window":
        if pairs(dilation, 3) != [1, 1, 1]:
            raise Unsupported("dilated 3-d pooling")
        kernel, p = pairs(kernel, 3), pairs(padding, 3)
        stride = pairs(stride, 3) if stride else kernel
        out = list(node.out.shape[-3:])
        sizes = shape(x)[-3:]
        high = [max(p[i], (out[i] - 1) * stride[i] + kernel[i] - sizes[i] - p[i]) for i in range(3)]
        return cls(kernel, stride, p, high, out)

    def hw(self) -> dict:
        return dict(kernel=self.kernel[1:], strides=self.stride[1:], padding=[*self.low[1:], *self.high[1:]])

    def depth(self) -> dict:
        return dict(
            kernel=[self.kernel[0], 1], strides=[self.stride[0], 1], padding=[self.low[0], 0, self.high[0], 0]
        )


def _batched(x):
    """[N, C, D, H, W] (an unbatched [C, D, H, W] input as a batch of one)."""
    if rank(x) == 4:
        return vb.reshape(x, [1, *shape(x)])
    if rank(x) != 5:
        raise Unsupported(f"3-d pooling of a rank-{rank(x)} tensor")
    return x


def _over_hw(x, pool2d, attrs: dict):
    """A 2-d pool over H, W of each depth slice: x as [N, C·D, H, W]."""
    n, c, d, h, w = shape(x)
    y = pool2d(vb.reshape(x, [n, c * d, h, w]), **attrs)
    return vb.reshape(y, [n, c, d, *shape(y)[2:]])


def _over_depth(x, pool2d, attrs: dict):
    """A 2-d pool over the depth: x as [N, C, D, H·W], kernel [kD, 1]."""
    n, c, d, h, w = shape(x)
    y = pool2d(vb.reshape(x, [n, c, d, h * w]), **attrs)
    return vb.reshape(y, [n, c, shape(y)[2], h, w])


def pool3d(node: Node, x, kind: str, window: Window):
    """`kind` pooling of `x` over D, H, W, in torch's declared output shape."""
    x, pool2d = _batched(x), POOLS[kind]
    n, c, d, h, w = shape(x)
    if d / window.out[0] > h * w / math.prod(window.out[1:]):  # the depth pass shrinks more
        y = _over_hw(_over_depth(x, pool2d, window.depth()), pool2d, window.hw())
    else:
        y = _over_depth(_over_hw(x, pool2d, window.hw()), pool2d, window.depth())
    return vb.reshape(y, list(node.out.shape)) if tuple(node.out.shape) != shape(y) else y


@rule("torch.aten.max_pool3d")
def max_pool3d(node: Node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    return pool3d(node, x, "max", Window.of(node, x, kernel, stride, padding, dilation))


@rule("torch.aten.avg_pool3d")
def avg_pool3d(
    node: Node,
    x,
    kernel,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    window = Window.of(node, x, kernel, stride, padding)
    if not (count_include_pad or divisor_override):
        return pool3d(node, x, "avg", window)
    # padding inside the count: zeros, and with a divisor_override the windows past the end too
    high = window.high if divisor_override else window.low
    x = vb.pad(_batched(x), low=[0, 0, *window.low], high=[0, 0, *high])
    rest = [h - p for h, p in zip(window.high, high, strict=True)]
    y = pool3d(node, x, "avg", Window(window.kernel, window.stride, [0, 0, 0], rest, window.out))
    if not divisor_override:
        return y
    return vb.mul(y, node.constant(math.prod(window.kernel) / divisor_override, element(y)))


@rule("torch.aten.adaptive_avg_pool3d", "torch.aten._adaptive_avg_pool3d")
def adaptive_avg_pool3d(node: Node, x, output_size):
    sizes, out = shape(x)[-3:], node.out.shape[-3:]
    if tuple(out) == (1, 1, 1):  # global average pooling: one mean over the flattened volume
        lead = list(shape(x)[:-3])
        mean = vb.reduce_mean(vb.reshape(x, [*lead, math.prod(sizes)]), axes=[len(lead)], keepdims=True)
        return vb.reshape(mean, list(node.out.shape))
    if any(s % o for s, o in zip(sizes, out, strict=True)):  # uneven windows: a matrix per axis
        mats = [pool._adaptive_matrix(o, s) for o, s in zip(out, sizes, strict=True)]
        return pool_backward.along_axes(node, x, mats)
    kernel = [s // o for s, o in zip(sizes, out, strict=True)]
    return pool3d(node, x, "avg", Window(kernel, kernel, [0, 0, 0], [0, 0, 0], list(out)))


@rule("torch.aten.max_pool3d_with_indices")
def max_pool3d_with_indices(node: Node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    """The indices (flat d·H·W + h·W + w, as torch's) separably too: in each depth slice the first
    maximum of each [kH, kW] window (rules/backward.py's 2-d construction), then the first of
    the kD depths holding the window's maximum: the first in (d, h, w) order, as torch picks."""
    window = Window.of(node, x, kernel, stride, padding, dilation)
    x = _batched(x)
    n, c, d, h, w = shape(x)
    planes = vb.reshape(x, [n, c * d, h, w])
    hw = window.hw()
    points = math.prod(window.out[1:])
    plane_max = vb.reshape(vb.max_pool2d(planes, **hw), [n, c, d, points])
    found = backward.max_pool2d_indices(
        node, planes, hw["kernel"], hw["strides"], hw["padding"], window.out[1:]
    )
    found = vb.reshape(found, [n, c, d, points])
    values = vb.reshape(vb.max_pool2d(plane_max, **window.depth()), list(node.out.shape))
    depths, taps = list(_depth_taps(window, plane_max, -np.inf)), list(_depth_taps(window, found, 0.0))
    stacked = vb.concat([vb.reshape(t, [*shape(t), 1]) for t in depths], axis=4)
    which = vb.reduce_argmax(stacked, axis=4)
    first = np.arange(window.out[0]) * window.stride[0] - window.low[0]
    indices = None
    for kd, tap in enumerate(taps):
        at = vb.add(tap, node.constant(((first + kd) * h * w).reshape(1, 1, -1, 1), "i64"))
        chosen = vb.compare(which, node.constant(kd, "i64"), predicate="eq")
        indices = at if indices is None else vb.select(chosen, at, indices)
    return [values, vb.reshape(indices, list(node.results[1].shape))]


def _depth_taps(window: Window, x, value: float):
    """For each kd: x [N, C, D, P] at depth o·sD + kd - pD for output depths o (padded with value)."""
    n, c, _, points = shape(x)
    padded = vb.pad(x, low=[0, 0, window.low[0], 0], high=[0, 0, window.high[0], 0], value=value)
    for kd in range(window.kernel[0]):
        limit = kd + (window.out[0] - 1) * window.stride[0] + 1
        yield vb.slice(
            padded, starts=[0, 0, kd, 0], limits=[n, c, limit, points], strides=[1, 1, window.stride[0], 1]
        )
