"""Pooling and resampling: max/avg pools, adaptive average pooling (1-d, 2-d and its gradient),
linear, bilinear and bicubic upsampling.

Windows the pool ops cannot express (uneven adaptive windows, bilinear weights) are separable:
a constant matrix along each of the two spatial axes, applied as two matmuls. So is the
gradient of average pooling (the transposed matrices: its divisor is a product of per-axis
window counts, whatever the padding mode).
"""

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from . import adaptive_sizes
from .common import element, pairs, rank, shape


def _pool_attrs(node: Node, x, kernel, stride, padding, ceil_mode, dilation=1):
    """(kernel, strides, padding, extra): `extra` [bottom, right] is the padding ceil_mode adds
    past torch's own (the excluded area a last, partial window overhangs)."""
    kernel = pairs(kernel)
    stride = pairs(stride)[:2] if stride else kernel  # the ONNX path may append dilations
    p = pairs(padding)
    pads = p if len(p) == 4 else [p[0], p[1], p[0], p[1]]  # ONNX's [top, left, bottom, right]
    if pairs(dilation) != [1, 1]:
        raise Unsupported("dilated pooling")
    extra = [_ceil_extra(node, x, i, kernel[i], stride[i], pads) for i in range(2)] if ceil_mode else [0, 0]
    return kernel, stride, pads, extra


def _ceil_extra(node: Node, x, i: int, k: int, s: int, pads) -> int:
    """The high padding that makes the dialect's floor extent torch's ceil_mode one along
    spatial dim i. Static: what the last window overhangs. Dynamic: s - 1, which turns
    floor((size + p - k) / s) into its ceiling, exact when no last window can start in the
    padding (torch drops such a window: when s - 1 + bottom padding < k it never starts there,
    and the dialect's `padding < kernel` holds)."""
    size = shape(x)[2 + i]
    if size is not None:
        out = node.out.shape[2 + i]
        return max(0, (out - 1) * s + k - (size + pads[i] + pads[i + 2]))
    if s - 1 + pads[i + 2] >= k:
        raise Unsupported(
            f"ceil_mode pooling over a dynamic dim with stride {s} > kernel {k} - padding "
            f"{pads[i + 2]} (whether the last window is dropped depends on the size)"
        )
    return s - 1


@rule("torch.aten.max_pool2d", dynamic=True)
def max_pool2d(node: Node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    kernel, stride, pads, extra = _pool_attrs(node, x, kernel, stride, padding, ceil_mode, dilation)
    pads = [pads[0], pads[1], pads[2] + extra[0], pads[3] + extra[1]]
    return vb.max_pool2d(x, kernel=kernel, strides=stride, padding=pads)


@rule("torch.aten.avg_pool2d", dynamic=True)
def avg_pool2d(
    node: Node,
    x,
    kernel,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    if divisor_override is not None:
        raise Unsupported("avg_pool2d with divisor_override")
    kernel, stride, pads, extra = _pool_attrs(node, x, kernel, stride, padding, ceil_mode)
    if count_include_pad and any(pads):  # versa averages over the window inside the input: pad first
        x = vb.pad(x, low=[0, 0, pads[0], pads[1]], high=[0, 0, pads[2], pads[3]], value=0.0)
        pads = [0, 0, 0, 0]
    # ceil_mode's overhang is never counted (torch clips a window to the padded input)
    pads = [pads[0], pads[1], pads[2] + extra[0], pads[3] + extra[1]]
    return vb.avg_pool2d(x, kernel=kernel, strides=stride, padding=pads)


def _avg_matrix(out: int, size: int, k: int, s: int, pad: int, include_pad: bool, divisor: int | None):
    """[out, size]: row i averages torch's average-pooling window i along one axis; its divisor
    is the window clipped to the padded input (count_include_pad) or to the input itself."""
    m = np.zeros((out, size))
    for i in range(out):
        start = i * s - pad
        lo, hi = max(start, 0), min(start + k, size)
        count = min(start + k, size + pad) - start if include_pad else hi - lo
        m[i, lo:hi] = 1.0 / (divisor**0.5 if divisor else count)
    return m


@rule("torch.aten.avg_pool2d_backward")
def avg_pool2d_backward(
    node: Node, grad, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    """The gradient of avg_pool2d: P_hᵀ · grad · P_w, P the forward's averaging matrices (a
    divisor_override d splits as √d per axis). Dense matrices: O(size²) per axis, not O(size·k)."""
    if rank(x) != 4:
        raise Unsupported("avg_pool2d_backward of a non-4-d tensor")
    kernel, p = pairs(kernel), pairs(padding)
    stride = pairs(stride) if stride else kernel
    (h, w), (oh, ow) = shape(x)[2:], shape(grad)[2:]
    rows, cols = (
        _avg_matrix(o, n, kernel[i], stride[i], p[i], bool(count_include_pad), divisor_override)
        for i, (o, n) in enumerate(((oh, h), (ow, w)))
    )
    return separable(node, grad, rows.T, cols.T)


@rule("torch.aten.adaptive_avg_pool2d", "torch.aten._adaptive_avg_pool2d", dynamic=True)
def adaptive_avg_pool2d(node: Node, x, output_size):
    (h, w), (oh, ow) = shape(x)[-2:], node.out.shape[-2:]
    if (oh, ow) == (1, 1):
        return vb.reduce_mean(x, axes=[rank(x) - 2, rank(x) - 1], keepdims=True)
    if h is None or w is None:  # averaging matrices built per call for the dynamic dims
        rows = _adaptive_matrix(oh, h) if h is not None else None
        cols = _adaptive_matrix(ow, w) if w is not None else None
        return adaptive_sizes.adaptive_avg_pool(node, x, rows, cols)
    if h % oh or w % ow or rank(x) != 4:  # uneven windows: P_h · x · P_wᵀ, constant averaging rows
        return separable(node, x, _adaptive_matrix(oh, h), _adaptive_matrix(ow, w))
    kernel = [h // oh, w // ow]
    return vb.avg_pool2d(x, kernel=kernel, strides=kernel)


@rule("torch.aten._adaptive_avg_pool2d_backward", "torch.aten.adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(node: Node, grad, x):
    """The gradient of adaptive average pooling (uneven windows too): P_hᵀ · grad · P_w, the
    forward's constant averaging matrices transposed."""
    (h, w), (oh, ow) = shape(x)[-2:], shape(grad)[-2:]
    if (oh, ow) == (1, 1):  # global average pooling (every CNN's head): grad / (h·w), spread
        return vb.broadcast_to(vb.div(grad, node.constant(float(h * w), element(grad))), list(shape(x)))
    return separable(node, grad, _adaptive_matrix(oh, h).T, _adaptive_matrix(ow, w).T)


@rule("torch.aten.adaptive_avg_pool1d")
def adaptive_avg_pool1d(node: Node, x, output_size):
    """x · Pᵀ along the last dim: one matmul with the constant averaging matrix."""
    m = _adaptive_matrix(node.out.shape[-1], shape(x)[-1])
    return vb.matmul(x, node.constant(np.ascontiguousarray(m.T)))


@rule("torch.aten.upsample_linear1d.vec", "torch.aten.upsample_linear1d")
def upsample_linear1d(node: Node, x, output_size, align_corners, *scales):
    """F.interpolate(mode="linear"): x · Mᵀ, M bilinear's interpolation matrix along one axis."""
    scale = scales[0] if scales else None  # .vec: a list of factors (or None); else one scale
    scale = scale[0] if isinstance(scale, list | tuple) else scale
    m = _bilinear_matrix(node.out.shape[-1], shape(x)[-1], bool(align_corners), scale)
    return vb.matmul(x, node.constant(np.ascontiguousarray(m.T)))


def _adaptive_matrix(out: int, size: int) -> np.ndarray:
    """[out, size]: row i averages torch's adaptive window [floor(i·size/out), ceil((i+1)·size/out))."""
    m = np.zeros((out, size))
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def separable(node: Node, x, rows: np.ndarray, cols: np.ndarray):
    """rows · x · colsᵀ over the last two dims: resampling as two matmuls with constant matrices."""
    return vb.matmul(node.constant(rows), vb.matmul(x, node.constant(np.ascontiguousarray(cols.T))))


def _bilinear_matrix(out: int, size: int, align_corners: bool, scale: float | None) -> np.ndarray:
    """[out, size]: torch's linear interpolation weights along one axis (area_pixel_compute_scale
    and _source_index: a given scale factor is used as 1/scale, not size/out)."""
    if align_corners:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else size / out
    m = np.zeros((out, size))
    for i in range(out):
        source = ratio * i if align_corners else max(ratio * (i + 0.5) - 0.5, 0.0)
        i0 = min(int(source), size - 1)
        i1 = min(i0 + 1, size - 1)
        m[i, i0] += 1.0 - (source - i0)
        m[i, i1] += source - i0
    return m


def _bicubic_matrix(out: int, size: int, align_corners: bool, scale: float | None) -> np.ndarray:
    """[out, size]: torch's bicubic weights along one axis (cubic convolution, A = -0.75; the
    source index is not clamped at 0 and the four taps are clamped to the edges)."""
    if align_corners:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else size / out
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    m = np.zeros((out, size))
    for i in range(out):
        source = ratio * i if align_corners else ratio * (i + 0.5) - 0.5
        i0 = int(np.floor(source))
        t = source - i0
        for k, wgt in enumerate((far(t + 1), near(t), near(1 - t), far(2 - t))):
            m[i, min(max(i0 - 1 + k, 0), size - 1)] += wgt
    return m


@rule("torch.aten.upsample_bicubic2d.vec", "torch.aten.upsample_bicubic2d")
def upsample_bicubic(node: Node, x, output_size, align_corners, *scales):
    """F.interpolate(mode="bicubic") (timm's position-embedding resize): two matmuls, as bilinear."""
    if rank(x) != 4:
        raise Unsupported("bicubic upsampling of a non-4-d tensor")
    # upsample_bicubic2d is a torch.operator (not registered in torch-mlir): tell the .vec form
    # (one scale_factors list) from the other (scales_h, scales_w) by its arguments
    if len(scales) == 1:
        factors = scales[0] if scales[0] is not None else [None, None]
    else:
        factors = [*scales, None, None][:2]
    (h, w), (oh, ow) = shape(x)[2:], node.out.shape[2:]
    rows = _bicubic_matrix(oh, h, bool(align_corners), factors[0])
    cols = _bicubic_matrix(ow, w, bool(align_corners), factors[1])
    return separable(node, x, rows, cols)


@rule("torch.aten.upsample_bilinear2d.vec", "torch.aten.upsample_bilinear2d")
def upsample_bilinear(node: Node, x, output_size, align_corners, *scales):
    """F.interpolate(mode="bilinear"), nn.Upsample, UpsamplingBilinear2d (torch-mlir's own
    lowering of upsample_bilinear2d.vec fails)."""
    if rank(x) != 4:
        raise Unsupported("bilinear upsampling of a non-4-d tensor")
    if node.op.operation.name.endswith(".vec"):
        factors = scales[0] if scales and scales[0] is not None else [None, None]
    else:
        factors = [*scales, None, None][:2]
    (h, w), (oh, ow) = shape(x)[2:], node.out.shape[2:]
    rows = _bilinear_matrix(oh, h, bool(align_corners), factors[0])
    cols = _bilinear_matrix(ow, w, bool(align_corners), factors[1])
    if h + w <= MATMUL_RESAMPLE_LIMIT:
        return separable(node, x, rows, cols)
    return _two_taps(node, _two_taps(node, x, cols, 3), rows, 2)


# Resampling as constant matrices costs 2·(h + w) multiply-adds per output, as gathers of the
# two taps 4: past this h + w the matmuls' extra work outweighs the gathers' extra passes
# (1x64x40x40 to 80x80: matmuls 1.2 ms, gathers 0.64 ms, eager 0.8 ms; 2-core Xeon, 1 thread).
MATMUL_RESAMPLE_LIMIT = 32


def _two_taps(node: Node, x, weights: np.ndarray, axis: int):
    """x resampled along `axis` by `weights` ([out, size], at most two non-zeros a row, as
    linear interpolation's): x[i0]·a + x[i1]·b, two gathers and their weighted sum."""
    out = weights.shape[0]
    first = np.argmax(weights != 0, axis=1)
    last = weights.shape[1] - 1 - np.argmax(weights[:, ::-1] != 0, axis=1)
    a = weights[np.arange(out), first]
    b = np.where(last != first, weights[np.arange(out), last], 0.0)
    placed = [out] + [1] * (rank(x) - axis - 1)  # broadcast from `axis` on
    terms = [
        vb.mul(
            vb.gather(x, node.constant(taps, "i32"), axis=axis), node.constant(wt.reshape(placed), element(x))
        )
        for taps, wt in ((first, a), (last, b))
    ]
    return vb.add(*terms)
