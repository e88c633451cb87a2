"""Tensors whose size is a run-time size another tensor has (issue 46): `arange(x.size(1))`, a
static buffer sliced to `x.size(1)`, an expand to `x.size(0)`, a fill of x's shape.

Under dynamic shapes transformers builds its position ids and attention masks this way. A
`SymbolicInt` that is a plain `x.size(d)` carries x as converted (`tensor`), so each of these
is built from ops whose result dims are x's: `versa.iota` with x as its `like` operand gives
[x.size(d)]; a dim to grow to x.size(d) comes from broadcasting against an all-true i1 mask of
that size (an iota compared with 0: a select of x on both sides, exact for every type).

A size shifted by a number (`s + 1`, `s - 4`: `SymbolicInt.affine`) is no tensor's dim, but
arange(s + c) is arange(s) followed by s + arange(c) (a concat sizes its result as a sum), and
a slice from s - c is a gather of positions c apart from the size read off the tensor
(`size_tensor`: an iota's maximum + 1) when the slice's length is static. A slice with number
bounds (`x[:, 1:]`, `x[:, :-1]`, `x[:, -4:]`) is a `versa.slice` counting them from the dim's
end (`from_end`), whose length the dialect's rule computes and checks per call. Sizes from
values (`cache[:, pos:pos + n]`) stay refused.
"""

from collections.abc import Sequence

import numpy as np

from versa.dialects import builders as vb
from versa.dialects import shapes
from versa.mlir import ir

from .. import types, values
from ..convert import Node, Unsupported
from ..values import SymbolicInt
from .common import rank, shape

I64 = "i64"


def source(size) -> tuple[ir.Value, int]:
    """The converted tensor and the dim whose size `size` is; Unsupported when it is none's."""
    if not isinstance(size, SymbolicInt) or size.tensor is None or size.dim is None:
        raise Unsupported(f"a run-time size {size!r} that is no converted tensor's dim")
    return size.tensor, size.dim


def arange(node: Node, start, end, step) -> ir.Value:
    """arange(start, end) of sizes Σ k·s + c (`SymbolicInt.linear`): start + arange(end -
    start). A length of k_i >= 0 times each size plus c is the concat of an iota per size (an
    iota sized by its tensor's dim), each shifted by the sizes before it, then arange(|c|)
    shifted by their sum (c > 0), or the whole cut |c| short of its end (c < 0, checked per
    call: the slice's rule); a static length is start + arange(length)."""
    element = types.element_type(node.out.element)
    begin, stop = _linear(start), _linear(end)
    if step != 1 or begin is None or stop is None:
        raise Unsupported(f"arange({start}, {end}, {step}) of a run-time length")
    terms, extra = values.linear_sum(stop, values.scaled(begin, -1))
    if any(k < 0 for _, k in terms) or not terms and extra < 0:
        raise Unsupported(f"arange({start}, {end}, {step}) of a run-time length that may be negative")
    sizes = [size for size, k in terms for _ in range(k)]
    pieces, offset = [], None
    for size in sizes:
        ramp = vb.iota_like(size.tensor, [size.dim], types.element_type(I64), axis=0)
        pieces.append(ramp if offset is None else vb.add(ramp, offset))
        offset = _plus(offset, size_tensor(node, size))
    if extra > 0 or not pieces:
        tail = node.constant(np.arange(max(extra, 0)), I64)
        pieces.append(tail if offset is None else vb.add(tail, offset))
    y = pieces[0] if len(pieces) == 1 else vb.concat(pieces, axis=0)
    if extra < 0 and sizes:
        y = from_end(y, 0, (0, extra), 1)
    if begin[0] or begin[1]:
        y = vb.add(y, _value(node, begin))
    return y if element == y.type.element_type else vb.cast(y, element)


def _linear(value) -> "values.Linear | None":
    if isinstance(value, int):
        return (), value
    return value.linear() if isinstance(value, SymbolicInt) else None


def _plus(a: ir.Value | None, b: ir.Value) -> ir.Value:
    return b if a is None else vb.add(a, b)


def _value(node: Node, form) -> ir.Value:
    """[1] i64 holding Σ k·s + c (each s read off its tensor, `size_tensor`)."""
    total = node.constant(form[1], I64)
    for size, k in form[0]:
        term = size_tensor(node, size)
        total = vb.add(total, term if k == 1 else vb.mul(term, node.constant(k, I64)))
    return total


def _shift(value) -> tuple[SymbolicInt, int] | None:
    return value.affine() if isinstance(value, SymbolicInt) else None


def size_tensor(node: Node, size: SymbolicInt) -> ir.Value:
    """[1] i64 holding a plain run-time size: its tensor's iota along the dim, max + 1."""
    ramp = vb.iota_like(size.tensor, [size.dim], types.element_type(I64), axis=0)
    return vb.add(vb.reduce_max(ramp, axes=[0], keepdims=True), node.constant(1, I64))


WHOLE = 2**62  # an end at least this large: to the end (torch's `x[a:]` is end = 2**63 - 1)


def dynamic_slice(node: Node, x: ir.Value, d: int, start, end, step, torch_x: ir.Value) -> ir.Value:
    """x[..., start:end:step, ...] along a dynamic dim d: the whole dim; with number bounds a
    `versa.slice` whose negative or open bounds count from the dim's end (`from_end`: `x[:, 1:]`
    is size - 1 long, checked per call against the size); else, from a run-time start, when
    the slice's length is static (torch proved the dim long enough), a gather of its positions,
    each `start` + i·step off the size of the dim the start names (a gather clamps: no read out
    of bounds)."""
    start, step = 0 if start is None else start, 1 if step is None else step
    to_end = end is None or isinstance(end, int) and end >= WHOLE
    if start == 0 and to_end and step == 1:
        return x
    if not isinstance(step, int) or step < 1:
        raise Unsupported(f"a slice ({start}:{end}:{step}) of a dynamic dim with a run-time or negative step")
    if isinstance(start, int) and (to_end or isinstance(end, int)):
        return from_end(x, d, (start, None if to_end else end), step)
    length = node.out.shape[d]
    if length is None:
        raise Unsupported(f"a slice ({start}:{end}:{step}) of a dynamic dim to a run-time length")
    positions = node.constant(np.arange(length, dtype=np.int64) * step, I64)
    if isinstance(start, int):
        return vb.gather(x, vb.add(positions, node.constant(start, I64)), axis=d)
    shift = _shift(start)
    if shift is None:
        raise Unsupported(f"a slice ({start}:{end}:{step}) from a run-time start that is no size + a number")
    first = vb.add(size_tensor(node, shift[0]), node.constant(shift[1], I64))
    return vb.gather(x, vb.add(positions, first), axis=d)


def from_end(x: ir.Value, d: int, bounds: tuple[int, int | None], step: int) -> ir.Value:
    """x[..., a:b:step, ...] along dim d, a negative bound (or no limit: the end) counted back
    from the dim's end as Python does; every other dim whole (a dynamic one as 0 from its end).
    The rule checks 0 <= start <= limit <= size per call, where torch would clamp."""
    dims = shape(x)
    starts, limits = [0] * len(dims), [0 if n is None else n for n in dims]
    flags = [2 if n is None else 0 for n in dims]
    strides = [1] * len(dims)
    (a, b), strides[d] = bounds, step
    back = b is None or b < 0  # the limit counts from the end (no limit: 0 from it)
    starts[d], limits[d] = abs(a), 0 if b is None else abs(b)
    flags[d] = (1 if a < 0 else 0) | (2 if back else 0)
    return vb.slice(x, starts=starts, limits=limits, strides=strides, from_end=flags)


def slice_to(node: Node, x: ir.Value, d: int, start, end, step) -> ir.Value:
    """x[..., 0:x2.size(k), ...] of a static dim d (a position-id buffer cut to the sequence): a
    gather of the positions iota(x2.size(k)). torch.export proves the length within the dim
    where the result meets the sequence's other tensors; a longer one would repeat the last
    row (the gather clamps: no read out of bounds), where torch stops at the dim."""
    if start not in (None, 0) or step not in (None, 1):
        raise Unsupported(f"a slice ({start}:{end}:{step}) to a run-time length not starting at 0")
    like, k = source(end)
    return vb.gather(x, vb.iota_like(like, [k], types.element_type(I64), axis=0), axis=d)


def expand(node: Node, x: ir.Value, sizes: Sequence) -> ir.Value:
    """x broadcast to `sizes` (torch's expand: ints, -1 to keep a dim, run-time sizes), where a
    dynamic result dim that x does not have grows to the size's tensor's dim."""
    out = node.out.shape
    lead = len(out) - rank(x)
    xs = (1,) * lead + shape(x)
    grown = [i for i, d in enumerate(out) if d is None and xs[i] is not None]
    if not grown:
        return vb.broadcast_to(x, list(out))
    if lead:
        x = vb.reshape(x, list(xs))
    static = [xs[i] if i in grown else d for i, d in enumerate(out)]
    if tuple(static) != xs:
        x = vb.broadcast_to(x, static)
    by_tensor: dict[ir.Value, list[int]] = {}
    for i in grown:
        like, d = source(sizes[i])
        dims = by_tensor.setdefault(like, [-1] * len(out))
        dims[i] = d
    for like, dims in by_tensor.items():
        positions = vb.iota_like(like, dims, types.element_type(I64), axis=0)
        everywhere = vb.compare(positions, node.constant(0, I64), predicate="ge")
        x = vb.select(everywhere, x, x)
    return x


def sizes_of(x: ir.Value, torch_x: ir.Value) -> list:
    """x's sizes as an expand takes them: its static dims, its dynamic ones read off x."""
    return [
        SymbolicInt(f"size({torch_x.get_name()}, {i})", i, torch_x, x) if d is None else d
        for i, d in enumerate(shape(x))
    ]


def full(node: Node, value, sizes: Sequence) -> ir.Value:
    """A tensor of `value` with dynamic dims: a scalar constant expanded to `sizes`."""
    scalar = node.constant(value)
    return expand(node, scalar, sizes)


def outer_index(node: Node, x: ir.Value, given: list[tuple[int, ir.Value]]) -> ir.Value:
    """x[..., i, j, ...] on adjacent axes with dynamic dims, where each index tensor varies
    along one dim at most and those dims come in the indices' order (np.ix_'s form: transformers
    reads its padding mask as `mask[arange(b)[:, None, None, None], arange(s)]`): one gather per
    index along its axis, then the broadcast's 1s put in. A flat index as the static form takes
    would need a run-time stride."""
    where: tuple = ()
    for _, t in given:
        where = shapes.broadcast(where, shape(t))
    varying = []
    for _, t in given:
        dims = [len(where) - rank(t) + i for i, n in enumerate(shape(t)) if n != 1]
        if len(dims) > 1:
            raise Unsupported("advanced indexing with dynamic dims by an index varying along several dims")
        varying += dims
    if varying != sorted(set(varying)):
        raise Unsupported("advanced indexing with dynamic dims by indices that are no outer product")
    first, y = given[0][0], x
    for j, (_, t) in enumerate(given):
        count = next((n for n in shape(t) if n != 1), 1)
        t = t if str(t.type.element_type) in ("i32", I64) else vb.cast(t, types.element_type(I64))
        y = vb.gather(y, vb.reshape(t, [count]), axis=first + j)
    return vb.reshape(y, [*shape(x)[:first], *where, *shape(x)[first + len(given) :]])
