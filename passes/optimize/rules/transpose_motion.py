"""Transpose motion: rewrite patterns that move `versa.transpose` through other ops, so that
transposes meet and cancel, or end at the function boundary.

Direction, chosen so that the rewrites terminate: transposes sink toward the uses and the return;
a transpose of a chain of elementwise ops that starts at a function argument rises to that
argument. With p⁻¹ the inverse perm and b' an operand b permuted by p⁻¹ (below):

    relu(transpose(a, p))                  → transpose(relu(a), p)
    add(transpose(a, p), b)                → transpose(add(a, b'), p)
    reduce_sum(transpose(a, p), axes)      → transpose(reduce_sum(a, p[axes]), p')  (p' = the perm
                                              the kept dims still need; none when they keep order)
    softmax(transpose(a, p), axis k)       → transpose(softmax(a, axis p[k]), p)    (cumsum too)
    slice(transpose(a, p), starts, ...)    → transpose(slice(a, starts permuted, ...), p)  (pad too)
    concat(transpose(a_i, p), axis k)      → transpose(concat(a_i', axis p[k]), p)
    transpose(relu(add(x, c)), q)          → relu(add(transpose(x, q), c''))        (x an argument)
    transpose(transpose(x, p), q)          → transpose(x, p∘q), or x (canonicalize.py's patterns)

b' needs no new transpose inside the function: b = transpose(c, p) gives c; a constant is
permuted at compile time; an operand whose non-unit dims keep their order under the perm (a bias
[C, 1, 1] broadcast to rank 4) becomes a `versa.reshape`; a function argument gets a transpose
of its own, which is at the boundary. Otherwise the pattern does not fire.

Why it terminates: sinking creates transposes only after the op it passed (downstream) or on
function arguments, and a transpose of an argument sinks through an elementwise op only when it
merges with another transpose, so sinking never undoes a hoist. What blocks motion and keeps a
transpose where it is: reshape (the flatten before a linear layer), matmul, layer_norm, gather,
an operand that is neither of the above kinds (e.g. a computed value in the other layout), and
elementwise chains with several users (hoisting them would duplicate work). A transpose with
several users sinks through each movable one; the others keep the original.
"""

from collections.abc import Callable, Sequence

import numpy as np
from versa.dialects.attributes import elements_to_numpy
from versa.dialects.build_support import i64
from versa.dialects.versa import OPS, ConcatOp, ConstantOp, ReshapeOp, TransposeOp
from versa.mlir import ir, rewrite

from ...common.matching import constant_attr, producer
from .transposes import compose_transposes, identity_transpose

Perm = list[int]
Build = Callable[[], ir.Value]  # builds an adapted operand once the whole rewrite is known to apply
PER_DIM_ATTRIBUTES = {"starts", "limits", "strides", "from_end", "low", "high"}


def inverse(perm: Sequence[int]) -> Perm:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return result


def permuted_type(t: ir.RankedTensorType, perm: Sequence[int]) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([t.shape[p] for p in perm], t.element_type)


def transpose(value: ir.Value, perm: Sequence[int]) -> ir.Value:
    attrs = {"perm": ir.DenseI64ArrayAttr.get(list(perm))}
    return TransposeOp.build([value], attrs, permuted_type(value.type, perm))


def transposed_operand(value: ir.Value) -> tuple[ir.Value, Perm] | None:
    """(x, perm) when `value` is `transpose(x, perm)`."""
    op = producer(value, "versa.transpose")
    return None if op is None else (op.operation.operands[0], TransposeOp.attrs(op)["perm"])


def permuted_elements(attr: ir.DenseElementsAttr, perm: Sequence[int]) -> ir.DenseElementsAttr | None:
    """`attr` with leading unit dims up to len(perm), transposed by `perm`; None for element
    types NumPy cannot hold (bf16)."""
    shape = [1] * (len(perm) - attr.type.rank) + list(attr.type.shape)
    result_type = ir.RankedTensorType.get([shape[p] for p in perm], attr.type.element_type)
    if attr.is_splat:
        return ir.DenseElementsAttr.get_splat(result_type, attr.get_splat_value())
    try:
        data = np.ascontiguousarray(elements_to_numpy(attr).reshape(shape).transpose(perm))
        return ir.DenseElementsAttr.get(data, type=result_type)
    except (TypeError, ValueError):
        return None


def permuted_value(value: ir.Value, perm: Sequence[int]) -> ir.Value:
    """transpose(value, perm), folded into a new constant when `value` is one."""
    attr = constant_attr(value)
    permuted = None if attr is None else permuted_elements(attr, perm)
    if permuted is None:
        return transpose(value, perm)
    return ConstantOp.build([], {"value": permuted}, permuted.type)


def plan_operand(value: ir.Value, perm: Perm, *, may_transpose_argument: bool) -> Build | None:
    """How to get `value`, broadcast to rank len(perm), transposed by `perm` without a new
    transpose inside the function; None when there is no such way."""
    rank = len(perm)
    source = transposed_operand(value)
    if source is not None and len(source[1]) == rank and [source[1][k] for k in perm] == list(range(rank)):
        return lambda: source[0]
    shape = [1] * (rank - value.type.rank) + list(value.type.shape)
    moved = [p for p in perm if shape[p] != 1]
    only_unit_dims_move = moved == sorted(moved)  # then the transpose is a reshape
    target = [shape[p] for p in perm]
    if only_unit_dims_move and target[rank - value.type.rank :] == list(value.type.shape):
        return lambda: value  # it broadcasts to the permuted shape as it is
    attr = constant_attr(value)
    if attr is not None:
        permuted = permuted_elements(attr, perm)
        return None if permuted is None else lambda: ConstantOp.build([], {"value": permuted}, permuted.type)
    if only_unit_dims_move:
        target_type = ir.RankedTensorType.get(target, value.type.element_type)
        return lambda: ReshapeOp.build([value], {}, target_type)
    if may_transpose_argument and isinstance(value, ir.BlockArgument) and value.type.rank == rank:
        return lambda: transpose(value, perm)
    return None


def moving_transpose(operands: Sequence[ir.Value], rank: int) -> tuple[Perm, bool] | None:
    """The perm to sink through an op, and whether it comes from a function argument. A
    transpose of an argument moves only by merging with another one of the same perm."""
    found = [t for t in map(transposed_operand, operands) if t is not None and len(t[1]) == rank]
    for source, perm in found:
        if not isinstance(source, ir.BlockArgument):
            return perm, False
    perms = [perm for _, perm in found]
    repeated = [perm for perm in perms if perms.count(perm) > 1]
    return (repeated[0], True) if repeated else None


def sink_operands(op: ir.OpView, rank: int) -> tuple[Perm, list[Build]] | None:
    """The perm p to sink through `op` and how to build each of its operands permuted by p⁻¹."""
    moving = moving_transpose(op.operands, rank)
    if moving is None:
        return None
    perm, from_argument = moving
    back = inverse(perm)
    plans = [plan_operand(v, back, may_transpose_argument=not from_argument) for v in op.operands]
    return None if any(p is None for p in plans) else (perm, plans)


def attributes(op: ir.OpView) -> dict[str, ir.Attribute]:
    return dict(op.operation.attributes.items())


def sink_through_operands(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """op(transpose(a, p), b, ...) → transpose(op(a, b', ...), p), for elementwise ops and
    concat (whose axis k becomes p[k])."""
    result_type = op.results[0].type
    planned = sink_operands(op, result_type.rank)
    if planned is None:
        return False
    perm, plans = planned
    cls, attrs = OPS[op.operation.name], attributes(op)
    if cls is ConcatOp:
        attrs["axis"] = i64(perm[ConcatOp.attrs(op)["axis"] % result_type.rank])
    inner = cls.build([build() for build in plans], attrs, permuted_type(result_type, inverse(perm)))
    rewriter.replace_op(op, [transpose(inner, perm)])
    return True


def sink_through_reduction(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """reduce(transpose(a, p), axes) → transpose(reduce(a, p[axes]), p') or reduce(a, p[axes])."""
    moving = transposed_operand(op.operands[0])
    if moving is None:
        return False
    source, perm = moving
    cls = OPS[op.operation.name]
    parsed, rank = cls.attrs(op), len(perm)
    axes = sorted({a % rank for a in parsed["axes"]})
    attrs = attributes(op)
    attrs["axes"] = ir.DenseI64ArrayAttr.get(sorted(perm[a] for a in axes))
    inner = cls.build([source], attrs)
    if parsed["keepdims"]:
        rest = perm
    else:
        kept = [perm[k] for k in range(rank) if k not in axes]
        rest = [sorted(kept).index(d) for d in kept]
    if rest == list(range(len(rest))):
        rewriter.replace_op(op, [inner])
    else:
        rewriter.replace_op(op, [transpose(inner, rest)])
    return True


def sink_through_axis_op(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """softmax(transpose(a, p), axis k) → transpose(softmax(a, axis p[k]), p); cumsum alike."""
    moving = transposed_operand(op.operands[0])
    if moving is None:
        return False
    source, perm = moving
    cls = OPS[op.operation.name]
    attrs = attributes(op)
    attrs["axis"] = i64(perm[cls.attrs(op)["axis"] % len(perm)])
    inner = cls.build([source], attrs, permuted_type(op.results[0].type, inverse(perm)))
    rewriter.replace_op(op, [transpose(inner, perm)])
    return True


def sink_through_slice_or_pad(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """slice(transpose(a, p), starts, ...) → transpose(slice(a, starts', ...), p), with each
    per-dim attribute permuted by p⁻¹ (pad's low and high alike)."""
    moving = transposed_operand(op.operands[0])
    if moving is None:
        return False
    source, perm = moving
    cls, back = OPS[op.operation.name], inverse(perm)
    attrs, parsed = attributes(op), cls.attrs(op)
    for name in PER_DIM_ATTRIBUTES.intersection(parsed):
        if name != "from_end" or any(parsed[name]):  # a slice's from_end: only where it counts
            attrs[name] = ir.DenseI64ArrayAttr.get([parsed[name][k] for k in back])
    inner = cls.build([source], attrs, permuted_type(op.results[0].type, back))
    rewriter.replace_op(op, [transpose(inner, perm)])
    return True


def hoist_to_argument(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """transpose(f(g(x, c)), q) → f(g(transpose(x, q), c')) for a chain of single-use
    elementwise ops that starts at a function argument x (c: constants and reshapable operands)."""
    perm = TransposeOp.attrs(op)["perm"]
    chain: list[tuple[ir.OpView, int, dict[int, Build]]] = []  # from the transpose up to the argument
    value = op.operands[0]
    while isinstance(value, ir.OpResult):
        link = _chain_link(value, perm)
        if link is None:
            return False
        chain.append(link)
        value = link[0].operands[link[1]]
    if not chain or not isinstance(value, ir.BlockArgument):
        return False
    current = transpose(value, perm)
    for owner, index, plans in reversed(chain):
        operands = [current if i == index else plans[i]() for i in range(len(owner.operands))]
        result_type = permuted_type(owner.results[0].type, perm)
        current = OPS[owner.operation.name].build(operands, attributes(owner), result_type)
    rewriter.replace_op(op, [current])
    return True


def _chain_link(value: ir.OpResult, perm: Perm) -> tuple[ir.OpView, int, dict[int, Build]] | None:
    """(op, index of the operand the chain continues through, plans of the others) when
    `value` is the only use of an elementwise op with exactly one full-shape non-constant operand."""
    owner = value.owner
    cls = OPS.get(owner.operation.name)
    if cls is None or not cls.ELEMENTWISE or len(list(value.uses)) != 1 or value.type.rank != len(perm):
        return None
    shape = list(value.type.shape)
    full = [
        i for i, v in enumerate(owner.operands) if list(v.type.shape) == shape and constant_attr(v) is None
    ]
    if len(full) != 1:
        return None
    others = {i: plan_operand(v, perm, may_transpose_argument=False) for i, v in enumerate(owner.operands)}
    del others[full[0]]
    return None if None in others.values() else (owner, full[0], others)


def merge_duplicate_transposes(op: ir.OpView, rewriter: rewrite.PatternRewriter) -> bool:
    """A transpose of x repeated later in the same block with the same perm → the first one."""
    this = op.operation
    for use in op.operands[0].uses:
        other = use.owner.operation
        if other == this or other.name != "versa.transpose" or other.block != this.block:
            continue
        if other.attributes["perm"] == this.attributes["perm"] and other.is_before_in_block(this):
            rewriter.replace_op(op, [other.results[0]])
            return True
    return False


PATTERNS = [
    (TransposeOp, compose_transposes),
    (TransposeOp, identity_transpose),
    (TransposeOp, merge_duplicate_transposes),
    (TransposeOp, hoist_to_argument),
    *[(cls, sink_through_operands) for cls in OPS.values() if cls.ELEMENTWISE],
    (ConcatOp, sink_through_operands),
    *[(OPS[f"versa.reduce_{kind}"], sink_through_reduction) for kind in ("sum", "max", "mean")],
    (OPS["versa.softmax"], sink_through_axis_op),
    (OPS["versa.cumsum"], sink_through_axis_op),
    (OPS["versa.slice"], sink_through_slice_or_pad),
    (OPS["versa.pad"], sink_through_slice_or_pad),
]
