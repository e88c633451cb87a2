"""Tensors whose size is a run-time size another tensor has (issue 46): `arange(x.size(1))`, a
static buffer sliced to `x.size(1)`, an expand to `x.size(0)`, a fill of x's shape.

Under dynamic shapes transformers builds its position ids and attention masks this way. A
`SymbolicInt` that is a plain `x.size(d)` carries x as converted (`tensor`), so each of these
is built from ops whose result dims are x's: `versa.iota` with x as its `like` operand gives
[x.size(d)]; a dim to grow to x.size(d) comes from broadcasting against an all-true i1 mask of
that size (an iota compared with 0: a select of x on both sides, exact for every type).

A size shifted by a number (`s + 1`, `s - 4`: `SymbolicInt.affine`) is no tensor's dim, but
arange(s + c) is arange(s) followed by s + arange(c) (a concat sizes its result as a sum), and
a slice from s - c, or from the end, is a gather of positions c apart from the size read off
the tensor (`size_tensor`: an iota's maximum + 1) when the slice's length is static. Sizes
from several tensors or from values (`cache[:, pos:pos + n]`) stay refused.
"""

from collections.abc import Sequence

import numpy as np

from versa.dialects import builders as vb
from versa.dialects import shapes
from versa.mlir import ir

from .. import types
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
    """arange(0, x.size(d), 1): an iota sized by x's dim d; arange(0, s + c) for c > 0: that
    iota, then s + arange(c); arange(s + a, s + b): s + arange(a, b) (a static length)."""
    element = types.element_type(node.out.element)
    begin, stop = _shift(start), _shift(end)
    if step == 1 and begin and stop and begin[0].source == stop[0].source and begin[0].dim == stop[0].dim:
        offsets = np.arange(begin[1], stop[1])
        return vb.cast(vb.add(size_tensor(node, begin[0]), node.constant(offsets, I64)), element)
    if start != 0 or step != 1 or not stop or stop[1] < 0:
        raise Unsupported(f"arange({start}, {end}, {step}) of a run-time length")
    size, extra = stop
    ramp = vb.iota_like(size.tensor, [size.dim], element, axis=0)
    if not extra:
        return ramp
    rest = vb.add(size_tensor(node, size), node.constant(np.arange(extra), I64))
    return vb.concat([ramp, vb.cast(rest, element) if element != rest.type.element_type else rest], axis=0)


def _shift(value) -> tuple[SymbolicInt, int] | None:
    return value.affine() if isinstance(value, SymbolicInt) else None


def size_tensor(node: Node, size: SymbolicInt) -> ir.Value:
    """[1] i64 holding a plain run-time size: its tensor's iota along the dim, max + 1."""
    ramp = vb.iota_like(size.tensor, [size.dim], types.element_type(I64), axis=0)
    return vb.add(vb.reduce_max(ramp, axes=[0], keepdims=True), node.constant(1, I64))


WHOLE = 2**62  # an end at least this large: to the end (torch's `x[a:]` is end = 2**63 - 1)


def dynamic_slice(node: Node, x: ir.Value, d: int, start, end, step, torch_x: ir.Value) -> ir.Value:
    """x[..., start:end:step, ...] along a dynamic dim d: the whole dim; else, when the slice's
    length is static (torch proved the dim long enough), a gather of its positions, each
    `start` + i·step, a start from the end (-c, or size - c) counted from the size of the dim
    it names (a gather clamps: no read out of bounds)."""
    start, step = 0 if start is None else start, 1 if step is None else step
    to_end = end is None or isinstance(end, int) and end >= WHOLE
    if start == 0 and to_end and step == 1:
        return x
    length = node.out.shape[d]
    if length is None or not isinstance(step, int) or step < 1:
        raise Unsupported(f"a slice ({start}:{end}:{step}) of a dynamic dim to a run-time length")
    if isinstance(start, int) and start < 0:  # from the end of x's own dim
        start = SymbolicInt(
            f"size({torch_x.get_name()}, {d}) - {-start}", shifted=(sizes_of(x, torch_x)[d], start)
        )
    positions = node.constant(np.arange(length, dtype=np.int64) * step, I64)
    if isinstance(start, int):
        return vb.gather(x, vb.add(positions, node.constant(start, I64)), axis=d)
    shift = _shift(start)
    if shift is None:
        raise Unsupported(f"a slice ({start}:{end}:{step}) from a run-time start that is no size + a number")
    first = vb.add(size_tensor(node, shift[0]), node.constant(shift[1], I64))
    return vb.gather(x, vb.add(positions, first), axis=d)


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
