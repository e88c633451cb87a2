"""Tensor factories and fills: literals, zeros, ones, full, arange, tril/triu, fill, copy.

Literals (weights) and factories with constant arguments become `versa.constant`s of the
declared shape.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.dialects.versa import ConstantOp
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import shape


@rule("torch.vtensor.literal")
def literal(node: Node) -> ir.Value:
    """Weights and constants: the dense elements become a `versa.constant` as they are."""
    value = node.op.attributes["value"]
    if not isinstance(value, ir.DenseElementsAttr):
        raise Unsupported(f"a literal of {type(value).__name__} (not dense elements)")
    if node.out.element == "ui8":  # bytes (bool tensors arrive as uint8): widen, a cast follows
        return vb.constant(np.array(value).reshape(node.out.shape).astype(np.int32))
    if str(value.type.element_type) != node.out.element:
        raise Unsupported(f"a literal of {value.type} for {node.out}")
    return ConstantOp.build([], {"value": value}, value.type)


def _full(node: Node, value) -> object:
    return node.constant(np.full(node.out.shape, value))


@rule(
    "torch.aten.zeros",
    "torch.aten.zeros_like",
    "torch.aten.new_zeros",
    "torch.aten.empty.memory_format",
    "torch.aten.empty_like",
    "torch.aten.new_empty",
)
def zeros(node: Node, *_):
    return _full(node, 0)


@rule("torch.aten.ones", "torch.aten.ones_like", "torch.aten.new_ones")
def ones(node: Node, *_):
    return _full(node, 1)


@rule("torch.aten.full")
def full(node: Node, size, value, *_):
    return _full(node, value)


@rule("torch.aten.full_like")
def full_like(node: Node, x, value, *_):
    return _full(node, value)


@rule("torch.aten.new_full")
def new_full(node: Node, x, size, value, *_):
    """x.new_full(size, value): the size comes first (full_like's second argument is the value)."""
    return _full(node, value)


@rule("torch.aten.scalar_tensor")
def scalar_tensor(node: Node, value, *_):
    return _full(node, value)


@rule("torch.aten.fill.Scalar")
def fill(node: Node, x, value):
    return _full(node, value)


@rule("torch.aten.arange", "torch.aten.arange.start", "torch.aten.arange.start_step")
def arange(node: Node, *args):
    name = node.op.operation.name
    start = args[0] if name.endswith((".start", ".start_step")) else 0
    step = args[2] if name.endswith(".start_step") else 1
    return node.constant(start + step * np.arange(node.out.shape[0]))


def _triangle(node: Node, x, diagonal: int, lower: bool):
    rows, cols = shape(x)[-2:]
    keep = (
        np.tri(rows, cols, diagonal, dtype=bool) if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    )
    return vb.select(node.constant(keep, "i1"), x, node.constant(0, node.out.element))


@rule("torch.aten.tril")
def tril(node: Node, x, diagonal=0):
    return _triangle(node, x, diagonal, True)


@rule("torch.aten.triu")
def triu(node: Node, x, diagonal=0):
    return _triangle(node, x, diagonal, False)


@rule("torch.aten.copy")
def copy(node: Node, x, src, non_blocking=False):
    return src if shape(src) == node.out.shape else vb.broadcast_to(src, node.out.shape)
