"""Sliding windows and the padding modes' gradients, as gathers, scatters and slices with
constant indices:

    im2col (F.unfold)   the zero-padded input flattened per channel, one gather of the constant
                        window positions: [N, C, Hp·Wp] -> [N, C, kh·kw, L]
    col2im (F.fold)     its transpose: one scatter-add of the columns at the same positions
                        (overlapping windows add), then the padding cut off
    reflection/replication_pad backward   per padded dim: the centre, plus each border added
                        where the forward read it (reflection: flipped, one element in from the
                        edge; replication: summed into the edge element)
"""

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from .common import element, pairs, rank, shape


def _window_positions(hw, kernel, dilation, padding, stride) -> tuple[np.ndarray, tuple[int, int]]:
    """[kh·kw, L]: the flat position in the padded plane that window l reads at kernel offset k."""
    padded = [hw[i] + 2 * padding[i] for i in range(2)]
    out = [(padded[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(2)]
    rows = (
        np.arange(kernel[0])[:, None, None, None] * dilation[0]
        + np.arange(out[0])[None, None, :, None] * stride[0]
    )
    cols = (
        np.arange(kernel[1])[None, :, None, None] * dilation[1]
        + np.arange(out[1])[None, None, None, :] * stride[1]
    )
    flat = rows * padded[1] + cols
    return flat.reshape(kernel[0] * kernel[1], out[0] * out[1]), tuple(padded)


@rule("torch.aten.im2col")
def im2col(node: Node, x, kernel, dilation, padding, stride):
    kernel, dilation, padding, stride = (pairs(v) for v in (kernel, dilation, padding, stride))
    batched = rank(x) == 4
    if not batched:
        x = vb.reshape(x, [1, *shape(x)])
    n, c, h, w = shape(x)
    positions, (hp, wp) = _window_positions((h, w), kernel, dilation, padding, stride)
    if any(padding):
        x = vb.pad(x, low=[0, 0, padding[0], padding[1]], high=[0, 0, padding[0], padding[1]])
    windows = vb.gather(vb.reshape(x, [n, c, hp * wp]), node.constant(positions, "i64"), axis=2)
    return vb.reshape(windows, node.out.shape)


@rule("torch.aten.col2im")
def col2im(node: Node, cols, output_size, kernel, dilation, padding, stride):
    kernel, dilation, padding, stride = (pairs(v) for v in (kernel, dilation, padding, stride))
    h, w = pairs(output_size)
    positions, (hp, wp) = _window_positions((h, w), kernel, dilation, padding, stride)
    taps, length = positions.shape
    n = shape(cols)[0] if rank(cols) == 3 else 1
    c = shape(cols)[-2] // taps
    # the scatter addresses leading dims: positions first, [N, C] carried along
    spread = vb.transpose(vb.reshape(cols, [n, c, taps * length]), perm=[2, 0, 1])
    zeros = vb.broadcast_to(node.constant(0.0, element(cols)), [hp * wp, n, c])
    index = node.constant(positions.reshape(taps * length, 1), "i64")
    plane = vb.reshape(
        vb.transpose(vb.scatter(zeros, index, spread, reduction="add"), perm=[1, 2, 0]), [n, c, hp, wp]
    )
    if any(padding):
        plane = vb.slice(
            plane, starts=[0, 0, padding[0], padding[1]], limits=[n, c, padding[0] + h, padding[1] + w]
        )
    return vb.reshape(plane, node.out.shape)


def _cut(x, d: int, start: int, limit: int):
    starts, limits = [0] * rank(x), list(shape(x))
    starts[d], limits[d] = start, limit
    return vb.slice(x, starts=starts, limits=limits)


def _placed(x, d: int, before: int, after: int):
    low, high = [0] * rank(x), [0] * rank(x)
    low[d], high[d] = before, after
    return vb.pad(x, low=low, high=high) if before or after else x


def _flipped(node: Node, x, d: int):
    return vb.gather(x, node.constant(np.arange(shape(x)[d] - 1, -1, -1), "i64"), axis=d)


def _border(node: Node, x, d: int, count: int, first: bool, mode: str):
    """The `count` elements padded before (first) or after x along d."""
    size = shape(x)[d]
    if mode == "circular":  # wrapped around: the other end's elements
        return _cut(x, d, size - count, size) if first else _cut(x, d, 0, count)
    if mode == "reflect":  # mirrored about the edge element, which is not repeated
        inner = _cut(x, d, 1, count + 1) if first else _cut(x, d, size - 1 - count, size - 1)
        return _flipped(node, inner, d)
    edge = _cut(x, d, 0, 1) if first else _cut(x, d, size - 1, size)
    grown = list(shape(edge))
    grown[d] = count
    return vb.broadcast_to(edge, grown)


GATHER_TABLE_LIMIT = 1 << 20  # output elements of the padded dims that one index table may name


def pad_edges(node: Node, x, padding, mode: str):
    """Reflection, replication or circular padding (pairs from the last dim backwards).

    Padding one dim is a concat of the two borders and x (x copied once, rows whole). Padding
    several is one gather from x with its padded dims flattened, through a constant table of
    flat source positions: one pass, where a concat per dim copied the whole tensor per dim
    (ReflectionPad2d in style-transfer and CycleGAN generators ran 3x slower than eager)."""
    if min(padding) < 0:
        raise Unsupported(f"negative {mode} padding")
    pads = {rank(x) - 1 - i: (padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)}
    if mode != "replicate" and any(max(pad) > shape(x)[d] - (mode == "reflect") for d, pad in pads.items()):
        raise Unsupported(f"{mode} padding wider than the input")
    padded = [d for d, pad in pads.items() if any(pad)]
    if len(padded) > 1:
        first = min(padded)
        block_pads = [pads.get(d, (0, 0)) for d in range(first, rank(x))]
        table = _source_positions(shape(x)[first:], block_pads, mode)
        if table.size <= GATHER_TABLE_LIMIT:
            flat = vb.reshape(x, [*shape(x)[:first], int(np.prod(shape(x)[first:]))])
            return vb.gather(flat, node.constant(table, "i32" if table.max() < 2**31 else "i64"), axis=first)
    for d in sorted(padded, reverse=True):
        lo, hi = pads[d]
        parts = [
            *([_border(node, x, d, lo, True, mode)] if lo else []),
            x,
            *([_border(node, x, d, hi, False, mode)] if hi else []),
        ]
        x = vb.concat(parts, axis=d)
    return x


def _source_positions(sizes: list[int], pads: list[tuple[int, int]], mode: str) -> np.ndarray:
    """For each element of the padded block, the flat position (in the unpadded block of
    `sizes`) that it copies: mirrored about the edge element (reflect), the edge (replicate), or
    wrapped around (circular)."""
    table = np.zeros([lo + n + hi for n, (lo, hi) in zip(sizes, pads, strict=True)], dtype=np.int64)
    stride = 1
    for d in range(len(sizes) - 1, -1, -1):
        n, lo = sizes[d], pads[d][0]
        j = np.arange(table.shape[d]) - lo
        table += (_source(j, n, mode) * stride).reshape([-1 if e == d else 1 for e in range(len(sizes))])
        stride *= n
    return table


def _source(j: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Positions `j` (of a dim of size n, padded on both sides) mapped into 0..n-1."""
    if mode == "reflect":
        return np.where(j < 0, -j, np.where(j >= n, 2 * (n - 1) - j, j))
    return np.clip(j, 0, n - 1) if mode == "replicate" else j % n


@rule("torch.aten.reflection_pad1d", "torch.aten.reflection_pad2d", "torch.aten.reflection_pad3d")
def reflection_pad(node: Node, x, padding):
    return pad_edges(node, x, list(padding), "reflect")


@rule("torch.aten.replication_pad1d", "torch.aten.replication_pad2d", "torch.aten.replication_pad3d")
def replication_pad(node: Node, x, padding):
    return pad_edges(node, x, list(padding), "replicate")


def _pad_backward(node: Node, grad, x, padding, reflect: bool):
    if min(padding) < 0:
        raise Unsupported("the backward of negative padding")
    for i in range(len(padding) // 2):
        d, lo, hi = rank(x) - 1 - i, padding[2 * i], padding[2 * i + 1]
        size = shape(x)[d]
        total = _cut(grad, d, lo, lo + size)
        if lo:
            left = _cut(grad, d, 0, lo)
            if reflect:  # padded position k read x[lo - k]
                total = vb.add(total, _placed(_flipped(node, left, d), d, 1, size - 1 - lo))
            else:
                total = vb.add(total, _placed(vb.reduce_sum(left, axes=[d], keepdims=True), d, 0, size - 1))
        if hi:
            right = _cut(grad, d, lo + size, lo + size + hi)
            if reflect:  # padded position lo + size + k read x[size - 2 - k]
                total = vb.add(total, _placed(_flipped(node, right, d), d, size - 1 - hi, 1))
            else:
                total = vb.add(total, _placed(vb.reduce_sum(right, axes=[d], keepdims=True), d, size - 1, 0))
        grad = total
    return grad


@rule(
    "torch.aten.reflection_pad1d_backward",
    "torch.aten.reflection_pad2d_backward",
    "torch.aten.reflection_pad3d_backward",
)
def reflection_pad_backward(node: Node, grad, x, padding):
    return _pad_backward(node, grad, x, list(padding), reflect=True)


@rule(
    "torch.aten.replication_pad1d_backward",
    "torch.aten.replication_pad2d_backward",
    "torch.aten.replication_pad3d_backward",
)
def replication_pad_backward(node: Node, grad, x, padding):
    return _pad_backward(node, grad, x, list(padding), reflect=False)
