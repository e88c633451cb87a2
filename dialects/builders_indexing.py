"""Builders of the comparison, logic and indexing ops (re-exported by `builders.py`, so call
them as `vb.compare(...)`, `vb.gather(...)`); conventions as in `builders.py`.

    m = vb.compare(x, vb.constant(np.float32(0)), predicate="gt")     # tensor<...xi1>
    y = vb.select(m, x, vb.neg(x))
    e = vb.gather(table, ids, axis=0)                                  # an embedding
    g = vb.scatter(zeros, ids_n_by_1, grads, reduction="add")          # its weight gradient
    p = vb.iota([1, 16], ir.IntegerType.get_signless(64), axis=1)       # positions
"""

from collections.abc import Sequence

from versa.mlir import ir

from . import versa as v
from .build_support import Ints, Ip, Loc, attrs, binary, boolean, i64, ints, string, unary, with_element


def compare(lhs: ir.Value, rhs: ir.Value, *, predicate: str, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.compare`: lhs <predicate> rhs ("eq", "ne", "lt", "le", "gt", "ge") as i1, broadcast.
    Float comparisons are ordered, except "ne" (NaN != anything is true)."""
    return with_element(v.CompareOp, [lhs, rhs], attrs(predicate=string(predicate)), _i1(), loc, ip)


def select(
    cond: ir.Value, on_true: ir.Value, on_false: ir.Value, *, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.select`: np.where(cond, on_true, on_false); cond is i1, all three broadcast."""
    element = on_true.type.element_type
    return with_element(v.SelectOp, [cond, on_true, on_false], {}, element, loc, ip)


def logical_and(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.and`: logical and of i1 tensors (bitwise on integers), broadcast."""
    return binary(v.AndOp, lhs, rhs, loc, ip)


def logical_or(lhs: ir.Value, rhs: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.or`: logical or of i1 tensors (bitwise on integers), broadcast."""
    return binary(v.OrOp, lhs, rhs, loc, ip)


def logical_not(x: ir.Value, *, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.not`: logical not of an i1 tensor (bitwise not of integers)."""
    return unary(v.NotOp, x, loc, ip)


def gather(x: ir.Value, indices: ir.Value, *, axis: int, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.gather`: np.take(x, indices, axis) with i32/i64 indices; a negative index wraps
    once, an index still out of range is clamped to [0, n - 1]."""
    return v.GatherOp.build([x, indices], attrs(axis=i64(axis)), loc=loc, ip=ip)


def scatter(
    x: ir.Value,
    indices: ir.Value,
    updates: ir.Value,
    *,
    reduction: str = "none",
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.scatter` (ONNX ScatterND): x with row r of `updates` put at (or, with `reduction`
    "add" / "max" / "min", combined into) x[indices[r]]; indices is [..., k] (i32/i64) and
    addresses x's leading k dims, updates is indices.shape[:-1] + x.shape[k:]. A negative index
    wraps once; a row still out of range is dropped."""
    v.ScatterOp.check_reduction(reduction, x.type.element_type)
    given = attrs(reduction=string(reduction) if reduction != "none" else None)
    return v.ScatterOp.build([x, indices, updates], given, loc=loc, ip=ip)


def iota(shape: Ints, element_type: ir.Type, *, axis: int, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.iota`: a tensor of `shape` whose elements are their index along `axis`."""
    result_type = ir.RankedTensorType.get([int(d) for d in shape], element_type)
    return v.IotaOp.build([], attrs(axis=i64(axis)), result_type, loc=loc, ip=ip)


def iota_like(
    like: ir.Value,
    dims: Sequence[int],
    element_type: ir.Type,
    *,
    axis: int,
    sizes: Sequence[int] | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.iota` sized by `like` (its dynamic dims too): result dim i is `like`'s dim dims[i],
    or where dims[i] is -1 the static sizes[i] (default 1)."""
    given = ir.RankedTensorType(like.type).shape
    static = list(sizes) if sizes is not None else [1] * len(dims)
    shape = [given[d] if d >= 0 else static[i] for i, d in enumerate(dims)]
    result_type = ir.RankedTensorType.get(shape, element_type)
    return v.IotaOp.build([like], attrs(axis=i64(axis), dims=ints(dims)), result_type, loc=loc, ip=ip)


def reduce_argmax(
    x: ir.Value, *, axis: int, keepdims: bool = False, loc: Loc = None, ip: Ip = None
) -> ir.Value:
    """`versa.reduce_argmax`: the first index of the maximum along `axis`, as i64."""
    given = attrs(axis=i64(axis), keepdims=boolean(keepdims) if keepdims else None)
    return with_element(v.ReduceArgmaxOp, [x], given, ir.IntegerType.get_signless(64), loc, ip)


def cumsum(x: ir.Value, *, axis: int, loc: Loc = None, ip: Ip = None) -> ir.Value:
    """`versa.cumsum`: the running sum along `axis` (np.cumsum), same shape and type."""
    return v.CumsumOp.build([x], attrs(axis=i64(axis)), loc=loc, ip=ip)


def conv_transpose2d(
    x: ir.Value,
    w: ir.Value,
    *,
    strides: Ints | None = None,
    padding: Ints | None = None,
    output_padding: Ints | None = None,
    dilations: Ints | None = None,
    groups: int | None = None,
    loc: Loc = None,
    ip: Ip = None,
) -> ir.Value:
    """`versa.conv_transpose2d`: torch's conv_transpose2d, NCHW, W is [C, F/groups, KH, KW];
    padding is [top, left, bottom, right] (torch's `padding=p` is [p, p, p, p])."""
    given = attrs(
        strides=ints(strides),
        padding=ints(padding),
        output_padding=ints(output_padding),
        dilations=ints(dilations),
        groups=i64(groups),
    )
    return v.ConvTranspose2dOp.build([x, w], given, loc=loc, ip=ip)


def _i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)
