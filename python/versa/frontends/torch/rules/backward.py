"""Training: the ATen ops of backward graphs (and the forward ops only they need) in versa ops.

AOTAutograd's backward graphs are mostly forward ops (mm, sums, selects). The rest is here:
    convolution_backward      input grad = transposed conv of the output grad with the weights;
                              weight grad = conv of the input with the output grad as the filter
                              (batch and channels swapped, stride and dilation exchanged);
                              of a transposed conv: the input grad is the forward conv of the output
                              grad, the weight grad the same construction with input and grad swapped;
                              of a 3-d conv: those of its 2-d forms (rules/conv3d.py)
    max_pool2d_with_indices   indices = flat position (h * W + w) of each window's first maximum
    ..._backward              each window's grad goes to its argmax: one masked, strided copy per
                              kernel offset, summed (dilated: one scatter-add, rules/pool_backward.py)
"""

import numpy as np

from versa.dialects import builders as vb

from ..convert import Node, Refused, Unsupported, rule
from . import conv, conv3d, pool, pool_backward
from .common import as_tensor, element, pairs, rank, shape, transpose


def _windows(x, kernel, stride, pads, out_hw):
    """For each kernel offset (i, j): x[..., i + s*oh - p, j + s*ow - p] over the output grid."""
    n, c = shape(x)[:2]
    padded = vb.pad(x, low=[0, 0, pads[0], pads[1]], high=[0, 0, pads[2], pads[3]], value=-np.inf)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            limits = [n, c, i + (out_hw[0] - 1) * stride[0] + 1, j + (out_hw[1] - 1) * stride[1] + 1]
            yield (i, j), vb.slice(padded, starts=[0, 0, i, j], limits=limits, strides=[1, 1, *stride])


def _flat_positions(node: Node, offset, stride, pads, out_hw, width: int):
    """The flat input index (h * W + w) that kernel offset `offset` reads at each output point."""
    rows = np.arange(out_hw[0])[:, None] * stride[0] - pads[0] + offset[0]
    cols = np.arange(out_hw[1])[None, :] * stride[1] - pads[1] + offset[1]
    return node.constant(rows * width + cols, "i64")


def max_pool2d_indices(node: Node, x, kernel, stride, pads, out_hw):
    """The flat position (h * W + w) in `x` [N, C, H, W] of each window's first maximum."""
    windows = list(_windows(x, kernel, stride, pads, out_hw))
    stacked = vb.concat([vb.reshape(w, [*shape(w), 1]) for _, w in windows], axis=4)
    which = vb.reduce_argmax(stacked, axis=4)
    indices = _flat_positions(node, windows[0][0], stride, pads, out_hw, shape(x)[3])
    for k, (offset, _) in enumerate(windows[1:], start=1):
        chosen = vb.compare(which, node.constant(k, "i64"), predicate="eq")
        indices = vb.select(chosen, _flat_positions(node, offset, stride, pads, out_hw, shape(x)[3]), indices)
    # one window (kernel 1): no select broadcast the [OH, OW] positions to [N, C, OH, OW]
    return indices if shape(indices) == shape(which) else vb.broadcast_to(indices, list(shape(which)))


@rule("torch.aten.max_pool2d_with_indices", dynamic=True)
def max_pool2d_with_indices(node: Node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False):
    """The values as max_pool2d's; the indices (backward's) of static shapes without ceil_mode's
    overhang only: inference graphs of torch.compile pool this way and never read them."""
    kernel, stride, pads, extra = pool._pool_attrs(node, x, kernel, stride, padding, ceil_mode, dilation)
    if any(extra) and None not in shape(x):  # the indices read windows inside torch's padding only
        raise Unsupported("ceil_mode pooling that changes the output shape")  # torch-mlir's, whole
    high = [pads[2] + extra[0], pads[3] + extra[1]]
    values = vb.max_pool2d(x, kernel=kernel, strides=stride, padding=[*pads[:2], *high])
    if None in shape(x):
        return [values, Refused("max pooling indices over dynamic dims")]
    return [values, max_pool2d_indices(node, x, kernel, stride, pads, node.out.shape[2:])]


def _place(x, axis: int, stride: int, offset: int, size: int):
    """Spread `x` along `axis` so element o lands at o * stride + offset of a length-`size` axis."""
    dims = list(shape(x))
    if stride > 1:  # interleave stride - 1 zeros after each element
        split = dims[: axis + 1] + [1] + dims[axis + 1 :]
        grown = vb.pad(
            vb.reshape(x, split),
            low=[0] * len(split),
            high=[0] * (axis + 1) + [stride - 1] + [0] * (len(dims) - axis - 1),
        )
        dims[axis] *= stride
        x = vb.reshape(grown, dims)
    zeros = [0] * len(dims)
    if offset > 0:
        x = vb.pad(x, low=[*zeros[:axis], offset, *zeros[axis + 1 :]], high=zeros)
    elif offset < 0:
        x = vb.slice(x, starts=[*zeros[:axis], -offset, *zeros[axis + 1 :]], limits=list(shape(x)))
    length = shape(x)[axis]
    if length < size:
        return vb.pad(x, low=zeros, high=[*zeros[:axis], size - length, *zeros[axis + 1 :]])
    limits = list(shape(x))
    limits[axis] = size
    return x if length == size else vb.slice(x, starts=zeros, limits=limits)


@rule("torch.aten.max_pool2d_with_indices_backward")
def max_pool2d_backward(node: Node, grad, x, kernel, stride, padding, dilation, ceil_mode, indices):
    if pairs(dilation) != [1, 1]:  # one scatter-add at the forward's indices (any window)
        return pool_backward.scatter_to_argmax(node, grad, x, indices, 2)
    kernel = pairs(kernel)
    stride, pads = pairs(stride) if stride else kernel, pairs(padding)
    out_hw, (height, width) = shape(grad)[2:], shape(x)[2:]
    total = None
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            here = _flat_positions(node, (i, j), stride, pads, out_hw, width)
            mine = vb.select(vb.compare(indices, here, predicate="eq"), grad, node.constant(0.0))
            placed = _place(_place(mine, 2, stride[0], i - pads[0], height), 3, stride[1], j - pads[1], width)
            total = placed if total is None else vb.add(total, placed)
    return total


def _grad_weight(x, grad, weight_shape, stride, padding, dilation, groups):
    """dL/dW: input (channels as batch) convolved with the output grad (batch as channels)."""
    c, f = shape(x)[1] // groups, shape(grad)[1] // groups
    if groups > 1 and c == 1 and f == 1:
        # depthwise: one grouped conv (groups = channels) instead of one conv per channel. The
        # batch becomes the channels of each group: input [1, C·N, H, W] (channel-major), filters
        # the output grad [C, N, OH, OW]; output [1, C, KH', KW'] sums over the batch and pixels.
        n = shape(x)[0]
        xs = vb.reshape(transpose(x, [1, 0, 2, 3]), [1, groups * n, *shape(x)[2:]])
        filters = transpose(grad, [1, 0, 2, 3])
        full = vb.conv2d(xs, filters, strides=dilation, padding=padding, dilations=stride, groups=groups)
        kept = vb.slice(full, starts=[0, 0, 0, 0], limits=[1, groups, *weight_shape[2:]])
        return vb.reshape(kept, list(weight_shape))
    parts = []
    for g in range(groups):
        xs = (
            x
            if groups == 1
            else vb.slice(x, starts=[0, g * c, 0, 0], limits=[*shape(x)[:1], (g + 1) * c, *shape(x)[2:]])
        )
        gs = (
            grad
            if groups == 1
            else vb.slice(
                grad, starts=[0, g * f, 0, 0], limits=[*shape(grad)[:1], (g + 1) * f, *shape(grad)[2:]]
            )
        )  # noqa: E501
        full = vb.conv2d(
            transpose(xs, [1, 0, 2, 3]),
            transpose(gs, [1, 0, 2, 3]),
            strides=dilation,
            padding=padding,
            dilations=stride,
        )
        kept = vb.slice(full, starts=[0, 0, 0, 0], limits=[c, f, *weight_shape[2:]])
        parts.append(transpose(kept, [1, 0, 2, 3]))
    return parts[0] if groups == 1 else vb.concat(parts, axis=0)


def _rows_reached(out: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """Input rows a convolution's output covers; the rest is the transposed conv's output_padding."""
    return (out - 1) * stride - 2 * pad + dilation * (kernel - 1) + 1


@rule("torch.aten.convolution_backward")
def convolution_backward(
    node: Node,
    grad,
    x,
    weight,
    bias_sizes,
    stride,
    padding,
    dilation,
    transposed,
    output_padding,
    groups,
    output_mask,
):
    if rank(x) == 5:
        return _convolution_backward_3d(
            grad, x, weight, stride, padding, dilation, transposed, groups, output_mask
        )
    if rank(x) not in (3, 4):
        raise Unsupported(f"the backward of a {rank(x) - 2}-d convolution")
    if rank(x) == 3:  # as the forward: a 2-d convolution of height 1
        stride, padding, dilation, output_padding = conv.lift_args(stride, padding, dilation, output_padding)
        rest = (bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask)
        results = convolution_backward(node, *(conv.lift(t) for t in (grad, x, weight)), *rest)
        return [
            r if isinstance(r, Refused) or i == 2 else vb.reshape(r, shape((x, weight)[i]))
            for i, r in enumerate(results)
        ]
    stride, dilation, p = pairs(stride), pairs(dilation), pairs(padding)
    pads = [p[0], p[1], p[0], p[1]]
    if transposed:
        return _requested(
            output_mask,
            lambda: _transposed_grad_input(grad, x, weight, stride, pads, dilation, groups),
            lambda: _grad_weight(grad, x, shape(weight), stride, pads, dilation, groups),
            grad,
        )

    return _requested(
        output_mask,
        lambda: _grad_input(grad, shape(x), weight, stride, pads, dilation, groups),
        lambda: _grad_weight(x, grad, shape(weight), stride, pads, dilation, groups),
        grad,
    )


def _grad_input(grad, x_shape, weight, stride, pads, dilation, groups):
    """dL/dx of a 2-d conv: the transposed conv of the output grad, reaching all of x."""
    extra = [
        x_shape[2 + i]
        - _rows_reached(shape(grad)[2 + i], shape(weight)[2 + i], stride[i], pads[i], dilation[i])
        for i in range(2)
    ]
    return vb.conv_transpose2d(
        grad, weight, strides=stride, padding=pads, output_padding=extra, dilations=dilation, groups=groups
    )


def _convolution_backward_3d(grad, x, weight, stride, padding, dilation, transposed, groups, output_mask):
    """A 3-d conv's gradients through its 2-d forms (rules/conv3d.py). Temporal: the 2-d gradients
    of the conv over planes [D, H·W]. Slices: y = Σ_kd conv2d(x_kd, w_kd), so dL/dw_kd is term
    kd's weight grad, and dL/dx sums each term's input grad placed back at the depths x_kd holds.
    The stacked form (one transposed conv to C·kD channels, one weight-grad conv) measured the
    same (16→16 k3 on 2x16x8x16x16: 1.59 ms a step either way) and loses the depthwise path."""
    if transposed:
        raise Unsupported("the backward of a 3-d transposed convolution")
    fold = conv3d.Fold.of(x, weight, stride, padding, dilation)
    sizes = fold.attrs()
    args = (sizes["strides"], sizes["padding"], sizes["dilations"], groups)
    if fold.temporal:
        dy, xs, ws = (vb.reshape(t, [*shape(t)[:3], shape(t)[3] * shape(t)[4]]) for t in (grad, x, weight))
        return _requested(
            output_mask,
            lambda: vb.reshape(_grad_input(dy, shape(xs), ws, *args), list(shape(x))),
            lambda: vb.reshape(_grad_weight(xs, dy, shape(ws), *args), list(shape(weight))),
            grad,
        )
    (n, c, depth, h, w), (o, cg, kd, kh, kw) = shape(x), shape(weight)
    rows = n * fold.depth  # the terms' batch: [N, Dout] flattened
    dy = vb.reshape(transpose(grad, [0, 2, 1, 3, 4]), [rows, o, *shape(grad)[3:]])

    def grad_input():
        total = None
        for i in range(kd):
            tap = vb.slice(weight, starts=[0, 0, i, 0, 0], limits=[o, cg, i + 1, kh, kw])
            term = _grad_input(dy, [rows, c, h, w], vb.reshape(tap, [o, cg, kh, kw]), *args)
            offset = i * fold.dilation[0] - fold.pads[0][0]  # the input depth output depth 0 reads
            placed = _place(vb.reshape(term, [n, fold.depth, c, h, w]), 1, fold.stride[0], offset, depth)
            total = placed if total is None else vb.add(total, placed)
        return transpose(total, [0, 2, 1, 3, 4])

    def grad_weight():
        slices = fold.slices(transpose(x, [0, 2, 1, 3, 4]), 1)  # [N, Dout, C, H, W] each
        terms = [_grad_weight(vb.reshape(s, [rows, c, h, w]), dy, [o, cg, kh, kw], *args) for s in slices]
        return vb.concat([vb.reshape(t, [o, cg, 1, kh, kw]) for t in terms], axis=2)

    return _requested(output_mask, grad_input, grad_weight, grad)


def _requested(output_mask, grad_input, grad_weight, grad) -> list:
    """[dL/dx, dL/dw, dL/db], each built only where autograd asked for it (`output_mask`)."""
    bias = vb.reduce_sum(grad, axes=[0, *range(2, rank(grad))]) if output_mask[2] else None
    return [
        grad_input() if output_mask[0] else Refused("an input gradient autograd did not ask for"),
        grad_weight() if output_mask[1] else Refused("a weight gradient autograd did not ask for"),
        bias if bias is not None else Refused("no bias gradient"),
    ]


def _transposed_grad_input(grad, x, weight, stride, pads, dilation, groups):
    """y = conv_transpose(x, w) is the input gradient of the conv z = conv2d(u, w) (w as [F = C_in,
    C_out / g, kh, kw], u with C_out channels). So dL/dx = conv2d(dL/dy, w), and dL/dw is that conv's
    weight gradient with dL/dy as its input and x as its output grad."""
    grad_x = vb.conv2d(grad, weight, strides=stride, padding=pads, dilations=dilation, groups=groups)
    if shape(grad_x) != shape(x):  # output_padding >= stride (allowed below the dilation)
        grad_x = vb.slice(grad_x, starts=[0, 0, 0, 0], limits=list(shape(x)))
    return grad_x


@rule("torch.aten.embedding_dense_backward")
def embedding_backward(node: Node, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """Row v of the weight grad sums the output grads of the tokens equal to v: one scatter-add
    of the [tokens, dim] grads into zeros (memory: the weight grad, nothing per token x
    vocabulary). Tokens equal to padding_idx contribute nothing: their index becomes
    num_weights, out of range, which the scatter drops. scale_grad_by_freq divides each
    token's grad by its token's count (a scatter-add of ones, read back with a gather)."""
    tokens, dim = int(np.prod(shape(indices))), shape(grad)[-1]
    ids = vb.reshape(as_tensor(node, indices, "i64"), [tokens])
    if padding_idx is not None and 0 <= padding_idx < num_weights:
        padding = vb.compare(ids, node.constant(padding_idx, "i64"), predicate="eq")
        ids = vb.select(padding, node.constant(num_weights, "i64"), ids)
    rows, updates = vb.reshape(ids, [tokens, 1]), vb.reshape(grad, [tokens, dim])
    elem = element(grad)
    if scale_grad_by_freq:
        ones = vb.broadcast_to(node.constant(1.0, elem), [tokens])
        zeros = vb.broadcast_to(node.constant(0.0, elem), [num_weights])
        counts = vb.scatter(zeros, rows, ones, reduction="add")
        per_token = vb.gather(counts, ids, axis=0)  # a padding token reads a clamped count: unused
        updates = vb.div(updates, vb.reshape(per_token, [tokens, 1]))
    zeros = vb.broadcast_to(node.constant(0.0, elem), [num_weights, dim])
    return vb.scatter(zeros, rows, updates, reduction="add")
