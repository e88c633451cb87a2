"""Convolutions: conv1d/conv2d and their transposes, as `versa.conv2d` / `versa.conv_transpose2d`
(conv3d: rules/conv3d.py).

A 1-d convolution is a 2-d one over an image of height 1 (the input [N, C, W] viewed as
[N, C, 1, W], the weight [F, C, K] as [F, C, 1, K]). That view costs nothing (a reshape of a
contiguous tensor), and the 1-d op then gets everything the 2-d one has: the codegen strategy,
the bias/activation epilogue, the layout pass. torch-mlir's own lowering of a 1-d convolution
(`linalg.conv_1d_ncw_fcw`) met no strategy and ran as scalar loops, 30-50x behind eager.
Biases become a broadcast `versa.add` after the contraction (versa-fuse makes it an epilogue).
"""

from versa.dialects import builders as vb

from ..convert import Node, Unsupported, rule
from . import conv3d
from .common import pairs, rank, shape


def _bias(x, bias, channel_axis: int):
    if bias is None:
        return x
    dims = [1] * rank(x)
    dims[channel_axis] = shape(bias)[0]
    return vb.add(x, vb.reshape(bias, dims))


def _conv_padding(padding, weight, dilation) -> list[int]:
    if padding == "valid":
        return [0, 0, 0, 0]
    if padding == "same":
        totals = [d * (k - 1) for d, k in zip(dilation, shape(weight)[2:], strict=True)]
        return [totals[0] // 2, totals[1] // 2, totals[0] - totals[0] // 2, totals[1] - totals[1] // 2]
    p = pairs(padding)
    return [p[0], p[1], p[0], p[1]]


def lift(x):
    """[N, C, W] as [N, C, 1, W] (a 1-d operand as a 2-d one of height 1)."""
    n, c, w = shape(x)
    return vb.reshape(x, [n, c, 1, w])


def lift_args(stride, padding, dilation, output_padding=0):
    """1-d size arguments as 2-d ones whose height does nothing ("same"/"valid" stay words)."""
    stride, dilation = ([1, pairs(v, 1)[0]] for v in (stride, dilation))
    if not isinstance(padding, str):
        padding = [0, pairs(padding, 1)[0]]
    return stride, padding, dilation, [0, pairs(output_padding, 1)[0]]


def _drop_height(node: Node, out):
    return vb.reshape(out, list(node.out.shape))


@rule("torch.aten.conv2d", "torch.aten.conv2d.padding", dynamic=True)
def conv2d(node: Node, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if rank(x) != 4:
        raise Unsupported(f"conv2d of a rank-{rank(x)} input (batch it)")
    dilation = pairs(dilation)
    out = vb.conv2d(
        x,
        weight,
        strides=pairs(stride),
        padding=_conv_padding(padding, weight, dilation),
        dilations=dilation,
        groups=groups,
    )
    return _bias(out, bias, 1)


@rule("torch.aten.conv1d", "torch.aten.conv1d.padding", dynamic=True)
def conv1d(node: Node, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if rank(x) == 2:  # unbatched [C, W]: a batch of one
        x = vb.reshape(x, [1, *shape(x)])
    if rank(x) != 3:
        raise Unsupported(f"conv1d of a rank-{rank(x)} input")
    stride, padding, dilation, _ = lift_args(stride, padding, dilation)
    out = conv2d(node, lift(x), lift(weight), None, stride, padding, dilation, groups)
    out = _bias(vb.reshape(out, [shape(out)[0], shape(out)[1], shape(out)[3]]), bias, 1)
    return vb.reshape(out, list(node.out.shape)) if tuple(node.out.shape) != shape(out) else out


@rule("torch.aten.conv_transpose2d.input", dynamic=True)
def conv_transpose2d(
    node: Node, x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    if shape(x)[1] is None:  # the filter's: phases and sub-filters are cut per channel
        raise Unsupported("conv_transpose2d with a dynamic channel dim")
    p = pairs(padding)
    out = vb.conv_transpose2d(
        x,
        weight,
        strides=pairs(stride),
        padding=[p[0], p[1], p[0], p[1]],
        output_padding=pairs(output_padding),
        dilations=pairs(dilation),
        groups=groups,
    )
    return _bias(out, bias, 1)


@rule("torch.aten.conv_transpose1d")
def conv_transpose1d(
    node: Node, x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    stride, padding, dilation, output_padding = lift_args(stride, padding, dilation, output_padding)
    out = conv_transpose2d(
        node, lift(x), lift(weight), None, stride, padding, output_padding, groups, dilation
    )
    return _bias(_drop_height(node, out), bias, 1)


@rule("torch.aten.convolution", "torch.aten._convolution", dynamic=True)
def convolution(
    node: Node, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *_
):
    if None in shape(x) and (rank(x) == 5 or transposed and rank(x) != 4):
        raise Unsupported("a 3-d or 1-d transposed convolution with dynamic dims")
    if rank(x) == 3:
        if transposed:
            return conv_transpose1d(node, x, weight, bias, stride, padding, output_padding, groups, dilation)
        return conv1d(node, x, weight, bias, stride, padding, dilation, groups)
    if rank(x) == 5 and not transposed:
        return conv3d.conv3d(node, x, weight, bias, stride, padding, dilation, groups)
    if rank(x) != 4:
        raise Unsupported(f"{rank(x) - 2}-d {'transposed ' if transposed else ''}convolution")
    if transposed:
        return conv_transpose2d(node, x, weight, bias, stride, padding, output_padding, groups, dilation)
    return conv2d(node, x, weight, bias, stride, padding, dilation, groups)
