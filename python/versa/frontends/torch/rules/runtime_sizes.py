"""Tensors whose size is a run-time size another tensor has (issue 46): `arange(x.size(1))`, a
static buffer sliced to `x.size(1)`, an expand to `x.size(0)`, a fill of x's shape.

Under dynamic shapes transformers builds its position ids and attention masks this way. A
`SymbolicInt` that is a plain `x.size(d)` carries x as converted (`tensor`), so each of these
is built from ops whose result dims are x's: `versa.iota` with x as its `like` operand gives
[x.size(d)]; a dim to grow to x.size(d) comes from broadcasting against an all-true i1 mask of
that size (an iota compared with 0: a select of x on both sides, exact for every type). A size
computed from several (`s + 1`) is no tensor's dim and is refused, as before.
"""

from collections.abc import Sequence

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
    """arange(0, x.size(d), 1): an iota sized by x's dim d (other starts or steps give a length
    that is no tensor's dim)."""
    if start != 0 or step != 1:
        raise Unsupported(f"arange({start}, {end}, {step}) of a run-time length")
    like, d = source(end)
    return vb.iota_like(like, [d], types.element_type(node.out.element), axis=0)


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
