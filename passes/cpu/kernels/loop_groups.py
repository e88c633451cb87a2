"""Loop groups: adjacent loops of a `linalg.generic` that every operand reads together, in
order, so that they can be one loop (a collapse_shape of each operand, an expand_shape of each
result). Shared by `versa-collapse-reductions` and `versa-collapse-elementwise`.
"""

import math

from versa.mlir import ir, linalg

from ...common import linalg_builders as build


def loops_read(m: ir.AffineMap, shape: list[int]) -> list[int | None] | None:
    """The loop read at each dim of an operand of `shape` through `m`; None for a size-1 dim read
    at the constant 0. None (the whole) for any other expression."""
    out: list[int | None] = []
    for e, size in zip(m.results, shape, strict=True):
        if isinstance(e, ir.AffineDimExpr):
            out.append(ir.AffineDimExpr(e).position)
        elif isinstance(e, ir.AffineConstantExpr) and ir.AffineConstantExpr(e).value == 0 and size == 1:
            out.append(None)
        else:
            return None
    return out


def loops_of(m: list[int | None]) -> list[int]:
    """The loops an operand's dims are read through, in order (its unit dims dropped)."""
    return [d for d in m if d is not None]


def loop_groups(
    iterators: list[str], maps: list[list[int | None]], views: list[set[int] | None] | None = None
) -> list[list[int]]:
    """Runs of adjacent loops of one kind that each map reads as consecutive results, in order,
    or not at all (unit dims aside). `views[k]`, where given, holds the dims i of operand k that
    merge with dim i + 1 without a copy (`mergeable_dims`; None: all of them)."""
    loops = [loops_of(m) for m in maps]
    views = views or [None] * len(maps)

    def free(m: list[int | None], merged: set[int] | None, d: int) -> bool:
        if merged is None or d not in m:
            return True
        return all(i in merged for i in range(m.index(d - 1), m.index(d)))

    groups = [[0]]
    for d in range(1, len(iterators)):
        same = iterators[d] == iterators[d - 1] and all(
            (d in m) == (d - 1 in m) and (d not in m or m.index(d) == m.index(d - 1) + 1) for m in loops
        )
        if same and all(free(m, v, d) for m, v in zip(maps, views, strict=True)):
            groups[-1].append(d)
        else:
            groups.append([d])
    return groups


def mergeable_dims(v: ir.Value) -> set[int] | None:
    """The dims i of tensor `v` that a collapse_shape can merge with dim i + 1 without copying
    once bufferized; None: every dim (a whole buffer). A slice's dims merge only where it
    takes whole rows with unit strides; a reshape's, where its source's do."""
    owner = v.owner
    if not isinstance(owner, ir.Operation | ir.OpView):
        return None  # a block argument: a whole buffer
    if owner.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        return None if mergeable_dims(owner.operands[0]) is None else set()
    if owner.name != "tensor.extract_slice":
        return None
    source = ir.RankedTensorType(owner.operands[0].type).shape
    sizes = list(ir.DenseI64ArrayAttr(owner.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(owner.attributes["static_strides"]))
    shape = ir.RankedTensorType(v.type).shape
    if len(shape) != len(source) or min(sizes + strides) < 0:
        return set()  # rank-reducing, or dynamic sizes or strides: left alone
    return {
        i
        for i in range(len(shape) - 1)
        if strides[i] == 1 and strides[i + 1] == 1 and sizes[i + 1] == source[i + 1]
    }


def reassociation(m: list[int | None], group_of: dict[int, int]) -> list[list[int]]:
    """The dims of an operand read through loops `m`, grouped as its loops are; a unit dim (None)
    joins the group before it, or the one after it when it leads (none: the operand is 0-d)."""
    groups: list[list[int]] = []
    previous, leading = None, []
    for i, d in enumerate(m):
        if d is None:
            (groups[-1] if groups else leading).append(i)
        elif groups and group_of[previous] == group_of[d]:
            groups[-1].append(i)
        else:
            groups.append([*leading, i])
            leading = []
        previous = d if d is not None else previous
    return groups


def collapse_operand(
    v: ir.Value, m: list[int | None], group_of: dict[int, int]
) -> tuple[ir.Value, list[int]]:
    """`v` (read through loops `m`) with the dims of one loop group as one and its unit dims
    dropped; its new loops. A filled init is filled afresh in the new shape (a kernel's init
    must come from a fill, `codegen/kernels.py`)."""
    groups = reassociation(m, group_of)
    new_dims = [group_of[m[next(i for i in g if m[i] is not None)]] for g in groups]
    if len(groups) == len(m):
        return v, new_dims
    t = ir.RankedTensorType(v.type)
    shape = [math.prod(t.shape[i] for i in g) for g in groups]
    fill = v.owner
    if isinstance(fill, ir.Operation | ir.OpView) and fill.name == "linalg.fill":
        return build.filled(shape, t.element_type, fill.operands[0]), new_dims
    return build.collapse(v, shape, groups), new_dims


def map_attr(rank: int, dims: list[int]) -> ir.AffineMapAttr:
    return ir.AffineMapAttr.get(ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(d) for d in dims]))


def iterators(kinds: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in kinds])


def cloned_generic(inputs, outputs, maps, kinds, body: ir.Block) -> ir.Operation:
    """A generic whose body is a copy of `body` (so one body can serve several stages)."""
    op = linalg.GenericOp(
        [o.type for o in outputs], inputs, outputs, ir.ArrayAttr.get(maps), iterators(kinds)
    )
    block = op.regions[0].blocks.append(*[a.type for a in body.arguments])
    mapping = dict(zip(body.arguments, block.arguments, strict=True))
    with ir.InsertionPoint(block):
        for inner in body.operations:
            clone = inner.clone()
            for old, new in mapping.items():
                clone.operation.replace_uses_of_with(old, new)
            mapping.update(zip(inner.results, clone.results, strict=True))
    return op.operation
