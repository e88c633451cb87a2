"""Tensor factories and fills: literals, zeros, ones, full, arange, tril/triu, fill, copy.

Literals (weights) and factories with constant arguments become `versa.constant`s of the
declared shape.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.dialects.versa import ConstantOp
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from . import runtime_sizes
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


def _full(node: Node, value, *args) -> object:
    """A tensor of `value`: a constant, or with dynamic dims a scalar expanded to the sizes the
    op takes (`*_like(x)`: x's; `new_*(x, size)`: its second argument; else its first)."""
    if not node.out.dynamic:
        return node.constant(np.full(node.out.shape, value))
    name = node.op.operation.name
    if name.endswith("_like") or name == "torch.aten.fill.Scalar":
        sizes = runtime_sizes.sizes_of(args[0], node.op.operands[0])
    else:
        sizes = args[1] if ".new_" in name else args[0]
    return runtime_sizes.full(node, value, sizes)


@rule(
    "torch.aten.zeros",
    "torch.aten.zeros_like",
    "torch.aten.new_zeros",
    "torch.aten.empty.memory_format",
    "torch.aten.empty_like",
    "torch.aten.new_empty",
    dynamic=True,
)
def zeros(node: Node, *args):
    return _full(node, 0, *args)


@rule("torch.aten.ones", "torch.aten.ones_like", "torch.aten.new_ones", dynamic=True)
def ones(node: Node, *args):
    return _full(node, 1, *args)


@rule("torch.aten.full", dynamic=True)
def full(node: Node, size, value, *_):
    return _full(node, value, size)


@rule("torch.aten.full_like", dynamic=True)
def full_like(node: Node, x, value, *_):
    return _full(node, value, x)


@rule("torch.aten.new_full", dynamic=True)
def new_full(node: Node, x, size, value, *_):
    """x.new_full(size, value): the size comes first (full_like's second argument is the value)."""
    return _full(node, value, x, size)


@rule("torch.aten.scalar_tensor")
def scalar_tensor(node: Node, value, *_):
    return _full(node, value)


@rule("torch.aten.fill.Scalar", dynamic=True)
def fill(node: Node, x, value):
    return _full(node, value, x)


@rule("torch.aten.arange", "torch.aten.arange.start", "torch.aten.arange.start_step", dynamic=True)
def arange(node: Node, *args):
    """start + step · [0, n); with a run-time length (`arange(x.size(1))`) an iota sized by x."""
    name = node.op.operation.name
    start = args[0] if name.endswith((".start", ".start_step")) else 0
    end = args[1] if name.endswith((".start", ".start_step")) else args[0]
    step = args[2] if name.endswith(".start_step") else 1
    if node.out.dynamic or not isinstance(start, int):  # a run-time length, or start (s - 3)
        return runtime_sizes.arange(node, start, end, step)
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
