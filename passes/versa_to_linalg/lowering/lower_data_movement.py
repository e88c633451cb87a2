"""convert-versa-to-linalg, continued: data movement (transpose, reshape, concat, slice, pad).

`PATTERNS` here joins the pattern table of `convert_versa_to_linalg`. Each op becomes tensor
ops on a fresh `tensor.empty` (or a fill, for pad) that one-shot-bufferize writes in place:

    %y = "versa.concat"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>

becomes

    %e = tensor.empty() : tensor<2x4xf32>
    %0 = tensor.insert_slice %a into %e[0, 0] [2, 3] [1, 1]
    %y = tensor.insert_slice %b into %0[0, 3] [2, 1] [1, 1]
"""

import functools
from typing import Any

from versa.dialects import versa as dialect
from versa.mlir import arith, ir, linalg, tensor

from ...common import extents
from ...common import linalg_builders as build
from ...common.matching import result_of, versa_attrs
from ...common.rewrite import Pattern


def lower_transpose(op: ir.OpView, rewriter: Any) -> bool:
    """transpose(x) → linalg.transpose."""
    (_, element), perm, x = result_of(op), versa_attrs(op)["perm"], op.operands[0]
    shape = [extents.dim(x, p) for p in perm]
    y = linalg.transpose(x, outs=[build.empty(shape, element)], permutation=perm)
    rewriter.replace_op(op, [y.results[0]])
    return True


def lower_reshape(op: ir.OpView, rewriter: Any) -> bool:
    """reshape(x) → tensor.collapse_shape to 1-D + tensor.expand_shape (dynamic dims sized by
    `extents.reshape`)."""
    x = op.operands[0]
    rewriter.replace_op(op, [build.reshape(x, extents.reshape(x, result_of(op)[0]))])
    return True


def lower_concat(op: ir.OpView, rewriter: Any) -> bool:
    """concat(x1, ..., xn) → tensor.empty + one insert_slice per operand.

    The import writes `torch.cat` of n tensors as a chain of n-1 concats (IRDL gives the operands
    after the first one type), so a concat whose only user is a concat along the same axis is
    left to that user, which inserts its operands directly: each input is copied once, not once
    per later link of the chain (quadratic in DenseNet's feature concatenations)."""
    if _inner_link(op) is not None:
        return False
    (types, element), axis = result_of(op), _axis(op)
    links: list[ir.OpView] = []
    operands = _chain_operands(op, links)
    known = {}  # a dynamic extent along the axis is the operands' sum; the others any operand's
    if extents.unknown(types[axis]):
        known[axis] = functools.reduce(extents.add, [extents.dim(x, axis) for x in operands])
    shape = extents.broadcast(operands, types, known)
    y, offset = build.empty(shape, element), 0
    for x in operands:
        y = build.copy_into(x, y, [offset if d == axis else 0 for d in range(len(types))])
        offset = extents.add(offset, extents.dim(x, axis))
    rewriter.replace_op(op, [y])
    for link in links:  # outermost first: each is dead once its user is gone
        rewriter.erase_op(link)
    return True


def _axis(op: ir.OpView) -> int:
    return versa_attrs(op)["axis"] % len(result_of(op)[0])


def _inner_link(op: ir.OpView) -> ir.OpView | None:
    """The concat along `op`'s axis that is `op`'s only user (in the same block), if any."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner
    if not isinstance(user, ir.OpView) or user.operation.name != "versa.concat":
        return None
    return user if user.operation.block == op.operation.block and _axis(user) == _axis(op) else None


def _chain_operands(op: ir.OpView, links: list) -> list[ir.Value]:
    """`op`'s operands with each inner link of its chain replaced by that link's operands."""
    operands = []
    for x in op.operands:
        owner = x.owner
        link = isinstance(owner, ir.OpView) and owner.operation.name == "versa.concat"
        if link and _inner_link(owner) is not None:
            links.append(owner)
            operands += _chain_operands(owner, links)
        else:
            operands.append(x)
    return operands


def lower_slice(op: ir.OpView, rewriter: Any) -> bool:
    """slice(x) → tensor.extract_slice with the starts and strides + linalg.copy.

    The copy makes the result contiguous: returning a strided view would bufferize to a strided
    memref.copy (see linalg_builders). A result without elements is a tensor.empty: MLIR refuses
    an extract_slice whose offset is not inside its dim (any offset into a dim of size 0, or a
    start at the end of a dim), and there is nothing to copy.
    """
    attrs, (types, element), x = versa_attrs(op), result_of(op), op.operands[0]
    if 0 in types:
        rewriter.replace_op(op, [build.empty(types, element)])
        return True
    offsets, shape = [], []
    for d, size in enumerate(types):
        start, length = _slice_bounds(x, d, attrs)
        offsets.append(start)
        shape.append(size if not extents.unknown(size) else extents.index(length))  # `?`: a value
    view = tensor.extract_slice(
        op.results[0].type,
        x,
        [v for v in offsets if isinstance(v, ir.Value)],
        [v for v in shape if isinstance(v, ir.Value)],
        [],
        extents.type_shape(offsets),
        list(types),
        attrs["strides"],
    )
    rewriter.replace_op(op, [linalg.copy(view, outs=[build.empty(shape, element)])])
    return True


def _slice_bounds(x: ir.Value, d: int, attrs: dict) -> tuple[extents.Extent, extents.Extent]:
    """(offset, length) of a slice along dim d: a bound counted from the end (`from_end`) is
    the dim's size minus it (the call's shape check keeps start <= limit <= size)."""
    start, limit, step, flags = (attrs[k][d] for k in ("starts", "limits", "strides", "from_end"))
    size = extents.dim(x, d) if flags else 0
    start = _back(size, start) if flags & 1 else start
    limit = _back(size, limit) if flags & 2 else limit
    if isinstance(start, int) and isinstance(limit, int):
        return start, (limit - start + step - 1) // step
    span = arith.subi(extents.index(limit), extents.index(start))
    return start, extents.floordiv(extents.add(span, step - 1), step)


def _back(size: extents.Extent, distance: int) -> extents.Extent:
    """size - distance, an index value when the size is dynamic."""
    return size - distance if isinstance(size, int) else extents.add(size, -distance)


def lower_pad(op: ir.OpView, rewriter: Any) -> bool:
    """pad(x) → linalg.fill(value) + an insert_slice of x into its interior."""
    attrs, (_, element) = versa_attrs(op), result_of(op)
    value = build.scalar(element, attrs["value"])
    rewriter.replace_op(op, [build.pad(op.operands[0], attrs["low"], attrs["high"], value)])
    return True


PATTERNS: list[tuple[type[dialect.VersaOp], Pattern]] = [
    (dialect.TransposeOp, lower_transpose),
    (dialect.ReshapeOp, lower_reshape),
    (dialect.ConcatOp, lower_concat),
    (dialect.SliceOp, lower_slice),
    (dialect.PadOp, lower_pad),
]
