"""Normalisation: batch norm (inference), layer norm, group and instance norm.

Under autocast a half (f16/bf16) activation meets parameters that stay f32 (a LayerNorm's
weight, a BatchNorm's running statistics). PyTorch's CPU kernels take that mixed form: they
compute in f32 and round the result once to the input's type. So do these rules: the input is
extended to f32, normalised with the parameters as they are, and rounded back. With one
element type throughout, the ops stay as they were (`versa.layer_norm` computes a half row in
f32 itself; `versa.batch_norm` stays whole, for fold-batch-norm).
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Refused, Unsupported, rule
from .common import as_tensor, element, rank, shape


def _compute_element(x: ir.Value, *params) -> str:
    """x's element type when every parameter tensor has it, else f32 (a mixed-type norm)."""
    others = {element(p) for p in params if isinstance(p, ir.Value)}
    return element(x) if others <= {element(x)} else "f32"


def _as(node: Node, elem: str, *values) -> list:
    """`values` (tensors or None) as tensors of `elem`."""
    return [None if v is None else as_tensor(node, v, elem) for v in values]


def _ones_or(node: Node, value, n: int, fill: float, elem: str):
    return value if value is not None else node.constant(np.full([n], fill), elem)


# ----------------------------------------------------------------------------- batch norm


@rule("torch.aten.batch_norm", dynamic=True)
def batch_norm(node: Node, x, weight, bias, mean, var, training, momentum, eps, *_):
    if training or mean is None:
        raise Unsupported("batch_norm with batch statistics (training mode)")
    if shape(x)[1] is None:
        raise Unsupported("batch_norm over a dynamic channel dim")
    elem = _compute_element(x, weight, bias, mean, var)
    xc, weight, bias, mean, var = _as(node, elem, x, weight, bias, mean, var)
    c = shape(x)[1]
    scale, shift = _ones_or(node, weight, c, 1.0, elem), _ones_or(node, bias, c, 0.0, elem)
    if rank(x) == 4:
        return as_tensor(node, vb.batch_norm(xc, scale, shift, mean, var, epsilon=eps), element(x))
    dims = [1] * rank(x)  # BatchNorm1d: the same math, spelt out
    dims[1] = c
    inv = vb.rsqrt(vb.add(var, node.constant(eps, elem)))
    normalised = vb.mul(vb.sub(xc, vb.reshape(mean, dims)), vb.reshape(vb.mul(inv, scale), dims))
    return as_tensor(node, vb.add(normalised, vb.reshape(shift, dims)), element(x))


@rule("torch.aten._native_batch_norm_legit_no_training", dynamic=True)
def batch_norm_no_training(node: Node, x, weight, bias, mean, var, momentum, eps):
    """What batch_norm becomes once an exported program is functionalized (importer.functional);
    the saved statistics are empty in inference and only backward reads them."""
    out = batch_norm(node, x, weight, bias, mean, var, False, momentum, eps)
    return [
        out,
        Refused("batch-norm statistics (backward only)"),
        Refused("batch-norm statistics (backward only)"),
    ]


# ----------------------------------------------------------------------------- layer norm


@rule("torch.aten.layer_norm", dynamic=True)
def layer_norm(node: Node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    tail = shape(x)[rank(x) - len(normalized_shape) :]
    if None in tail and (weight is None or bias is None):
        raise Unsupported("layer_norm without weight or bias over a dynamic dim")
    elem = _compute_element(x, weight, bias)
    xc, weight, bias = _as(node, elem, x, weight, bias)
    gamma = weight if weight is not None else node.constant(np.ones(tail), elem)
    beta = bias if bias is not None else node.constant(np.zeros(tail), elem)
    out = vb.layer_norm(xc, gamma, beta, axis=rank(x) - len(normalized_shape), epsilon=eps)
    return as_tensor(node, out, element(x))


# ----------------------------------------------------------------------------- group, instance norm


def _group_statistics(node: Node, x, groups: int, eps: float):
    """x normalised per (sample, group), with the group means and 1/std ([N, groups]).

    Each group is centred on its first element before the mean, as layer_norm's row kernel: an
    f32 sum of values far from 0 (x + 1e4) rounds at their magnitude, and the mean's error is
    the output's (x - mean)/std; on a constant group x - x0 is exactly 0, where that rounding
    divided by sqrt(eps) was ~300x its size in the output."""
    n, length = shape(x)[0], int(np.prod(shape(x)[1:])) // groups
    grouped = vb.reshape(x, [n, groups, length])
    first = vb.slice(grouped, starts=[0, 0, 0], limits=[n, groups, 1]) if length else None
    shifted = grouped if first is None else vb.sub(grouped, first)
    offset = vb.reduce_mean(shifted, axes=[2], keepdims=True)
    mean = offset if first is None else vb.add(first, offset)
    centered = vb.sub(shifted, offset)
    rstd = vb.rsqrt(
        vb.add(
            vb.reduce_mean(vb.mul(centered, centered), axes=[2], keepdims=True),
            node.constant(eps, element(x)),
        )
    )
    normalised = vb.reshape(vb.mul(centered, rstd), shape(x))
    return normalised, vb.reshape(mean, [n, groups]), vb.reshape(rstd, [n, groups])


def _channel_affine(x, weight, bias):
    per_channel = [1, shape(x)[1]] + [1] * (rank(x) - 2)
    x = x if weight is None else vb.mul(x, vb.reshape(weight, per_channel))
    return x if bias is None else vb.add(x, vb.reshape(bias, per_channel))


def _per_channel(value, groups: int, channels: int):
    """A per-group scale or shift (ONNX GroupNormalization-18) repeated for each group's channels."""
    if value is None or shape(value)[0] == channels or shape(value)[0] != groups:
        return value
    spread = vb.broadcast_to(vb.reshape(value, [groups, 1]), [groups, channels // groups])
    return vb.reshape(spread, [channels])


def _normalised(node: Node, x, groups: int, weight, bias, eps: float) -> list[ir.Value]:
    """Group norm of x, affine per channel: [y, mean, rstd], in f32 for a mixed-type norm."""
    elem = _compute_element(x, weight, bias)
    xc, weight, bias = _as(node, elem, x, weight, bias)
    normalised, mean, rstd = _group_statistics(node, xc, groups, eps)
    return [_channel_affine(normalised, weight, bias), mean, rstd]


@rule("torch.aten.group_norm")
def group_norm(node: Node, x, groups, weight=None, bias=None, eps=1e-5, *_):
    c = shape(x)[1]
    weight, bias = _per_channel(weight, groups, c), _per_channel(bias, groups, c)
    return as_tensor(node, _normalised(node, x, groups, weight, bias, eps)[0], element(x))


@rule("torch.aten.instance_norm")
def instance_norm(node: Node, x, weight, bias, mean, var, use_input_stats, momentum, eps, *_):
    """With `use_input_stats` false (InstanceNorm(track_running_stats=True) in eval mode) eager
    normalises with the running statistics, per channel: an inference batch norm."""
    if use_input_stats:
        return as_tensor(node, _normalised(node, x, shape(x)[1], weight, bias, eps)[0], element(x))
    c = shape(x)[1] if rank(x) >= 2 else None
    for name, value in (("running_mean", mean), ("running_var", var), ("weight", weight), ("bias", bias)):
        if name.startswith("running") and value is None:
            raise Unsupported(f"instance_norm without input statistics needs {name}")
        if value is not None and (not isinstance(value, ir.Value) or shape(value) != (c,)):
            raise Unsupported(f"instance_norm: {name} is not a tensor of the {c} channels")
    return batch_norm(node, x, weight, bias, mean, var, False, momentum, eps)


@rule("torch.aten.native_group_norm")
def native_group_norm(node: Node, x, weight, bias, n, c, hw, groups, eps):
    """[y, mean, rstd], each in its declared type (mixed: y in x's, the statistics in f32)."""
    results = _normalised(node, x, groups, weight, bias, eps)
    return [as_tensor(node, r, t.element) if t else r for r, t in zip(results, node.results, strict=True)]
