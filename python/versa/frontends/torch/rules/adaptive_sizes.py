"""Adaptive average pooling of a dynamic spatial dim to a fixed size (issue 46): a convnet's
head (`AdaptiveAvgPool2d((7, 7))`) served at several image sizes.

torch's window i of `out` along a dim of run-time size H is [floor(i·H/out), ceil((i+1)·H/out)):
element j lies in it when i·H < (j+1)·out and j·out < (i+1)·H, exact in integers. The averaging matrix
P [out, H] (its rows those windows' masks over their counts) is built per call from an iota
over x's dim and H (the iota's max + 1), and applied as a matmul over the dim, as the static
matrices are (`pool.separable`): the matmul strategy takes the dynamic K whole.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from .. import types
from ..convert import Node
from .common import shape

I64 = "i64"


def averaging(node: Node, x: ir.Value, d: int, out: int, transposed: bool) -> ir.Value:
    """P [out, size of x's dim d] (or Pᵀ when `transposed`) for x's dynamic dim d."""
    axis, dims = (0, [d, -1]) if transposed else (1, [-1, d])
    j = vb.iota_like(x, dims, types.element_type(I64), axis=axis)  # [1, H] or [H, 1]
    size = vb.add(vb.reduce_max(j, axes=[axis], keepdims=True), node.constant(1, I64))  # [1, 1]
    i = np.arange(out, dtype=np.int64)
    i = i[None] if transposed else i[:, None]
    scaled = vb.mul(j, node.constant(out, I64))
    inside = vb.logical_and(  # j >= floor(i·H/out) and j < ceil((i+1)·H/out)
        vb.compare(
            vb.add(scaled, node.constant(out, I64)), vb.mul(node.constant(i, I64), size), predicate="gt"
        ),
        vb.compare(scaled, vb.mul(node.constant(i + 1, I64), size), predicate="lt"),
    )
    mask = vb.cast(inside, types.element_type(node.out.element))
    return vb.div(mask, vb.reduce_sum(mask, axes=[axis], keepdims=True))


def adaptive_avg_pool(node: Node, x: ir.Value, rows: np.ndarray | None, cols: np.ndarray | None):
    """P_h · x · P_wᵀ over the last two dims: the given constant matrices where that dim is
    static (None where it is dynamic: built at run time)."""
    (h, w), (oh, ow) = shape(x)[-2:], node.out.shape[-2:]
    n = len(shape(x))
    right = (
        node.constant(np.ascontiguousarray(cols.T)) if w is not None else averaging(node, x, n - 1, ow, True)
    )
    left = node.constant(rows) if h is not None else averaging(node, x, n - 2, oh, False)
    return vb.matmul(left, vb.matmul(x, right))
