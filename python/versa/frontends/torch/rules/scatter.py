"""Scatter-type ops as `versa.scatter` (ONNX ScatterND): index_add, scatter (src / value),
scatter_add, scatter_reduce (sum, mean, amax, amin), index_put and _unsafe_index_put.

Each becomes one scatter (two or three for scatter_reduce's variants) whose index rows are
full coordinates into the leading dims of the destination, built from the index tensors and
iotas: for index_add along dim d, row (i0, ..., id-1, index[j]) of source.shape[:d+1] takes
the slice source[i0, ..., j] of shape x.shape[d+1:]; for scatter along dim d, every element of
`index` is one row of rank-many coordinates with itself at position d. The destination is
never transposed and nothing grows with the destination's size but the copy of it.

Out-of-range indices (torch raises) wrap once if negative and are otherwise dropped.
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from .common import as_tensor, axis, element, rank, shape

I64 = ir.IntegerType.get_signless


def coordinates(node: Node, batch: tuple[int, ...], parts: list) -> ir.Value:
    """Index rows [*batch, len(parts)]: part j is either an int (an iota along that batch
    axis) or a tensor broadcastable to `batch` (after reshaping, by the caller)."""
    columns = []
    for part in parts:
        if isinstance(part, int):
            column = vb.iota([*batch, 1], I64(64), axis=part)
        else:
            column = vb.reshape(_fit(as_tensor(node, part, "i64"), batch), [*batch, 1])
        columns.append(column)
    return columns[0] if len(columns) == 1 else vb.concat(columns, axis=len(batch))


def _updates(node: Node, values, x: ir.Value, batch: tuple[int, ...], k: int) -> ir.Value:
    """`values` (a tensor or a number) as x's element type, broadcast to batch + x.shape[k:]."""
    return _fit(as_tensor(node, values, element(x)), (*batch, *shape(x)[k:]))


def _fit(t: ir.Value, target: tuple[int, ...]) -> ir.Value:
    return t if shape(t) == tuple(target) else vb.broadcast_to(t, list(target))


def _full(node: Node, value: float, target: tuple[int, ...], elem: str) -> ir.Value:
    """A tensor of one value (a broadcast scalar: no constant of the full size)."""
    return _fit(node.constant(value, elem), target)


# ----------------------------------------------------------------------------- index_add


@rule("torch.aten.index_add")
def index_add(node: Node, x, dim, index, source, alpha=1):
    """x.index_add(dim, index, source): rows (i0, .., index[j]) over source.shape[:dim+1]."""
    d = axis(dim, x)
    if alpha != 1:
        source = vb.mul(source, node.constant(alpha, element(source)))
    batch = shape(source)[: d + 1]
    lead = [1] * d + [shape(index)[0] if rank(index) else 1]
    parts = [*range(d), vb.reshape(as_tensor(node, index, "i64"), lead)]
    rows = coordinates(node, batch, parts)
    return vb.scatter(x, rows, _updates(node, source, x, batch, d + 1), reduction="add")


# ----------------------------------------------------------------------------- scatter, scatter_add


def _elementwise_rows(node: Node, x, dim: int, index) -> ir.Value:
    """One full coordinate row per element of `index`: itself at `dim`, its position elsewhere."""
    batch = shape(index)
    parts = [index if a == dim else a for a in range(rank(x))]
    return coordinates(node, batch, parts)


def _source(node: Node, src, index, x) -> ir.Value:
    """The part of `src` that `index` covers (torch reads src[p] for p in index's shape)."""
    src = as_tensor(node, src, element(x))
    if not shape(src) or shape(src) == shape(index):
        return _fit(src, shape(index))
    return vb.slice(src, starts=[0] * rank(src), limits=list(shape(index)))


def _checked(x, dim, index):
    if rank(index) != rank(x):
        raise Unsupported(f"scatter with an index of rank {rank(index)} into rank {rank(x)}")
    return axis(dim, x)


@rule("torch.aten.scatter.src", "torch.aten.scatter.value")
def scatter(node: Node, x, dim, index, src):
    d = _checked(x, dim, index)
    return vb.scatter(x, _elementwise_rows(node, x, d, index), _source(node, src, index, x))


@rule("torch.aten.scatter_add")
def scatter_add(node: Node, x, dim, index, src):
    d = _checked(x, dim, index)
    rows = _elementwise_rows(node, x, d, index)
    return vb.scatter(x, rows, _source(node, src, index, x), reduction="add")


_REDUCTIONS = {"sum": "add", "amax": "max", "amin": "min", "mean": "add"}


@rule("torch.aten.scatter_reduce.two")
def scatter_reduce(node: Node, x, dim, index, src, reduce, include_self=True):
    """sum / amax / amin: one scatter (without self: the touched elements are first reset to
    the reduction's identity); mean: sum / count, count scattered alongside (self counts once
    when included; untouched elements divide by 1)."""
    if reduce not in _REDUCTIONS:
        raise Unsupported(f"scatter_reduce with reduce='{reduce}'")
    d = _checked(x, dim, index)
    rows = _elementwise_rows(node, x, d, index)
    src = _source(node, src, index, x)
    base = x if include_self else vb.scatter(x, rows, _identity(node, reduce, x, index))
    total = vb.scatter(base, rows, src, reduction=_REDUCTIONS[reduce])
    if reduce != "mean":
        return total
    if element(x) not in ("f32", "f16", "bf16"):
        raise Unsupported(f"scatter_reduce mean of {element(x)} (torch floors it)")
    start = _full(node, 1.0 if include_self else 0.0, shape(x), element(x))
    count = vb.scatter(start, rows, _full(node, 1.0, shape(index), element(x)), reduction="add")
    return vb.div(total, vb.max(count, node.constant(1.0, element(x))))


def _identity(node: Node, reduce: str, x, index) -> ir.Value:
    """The value of `reduce` over nothing, in the shape of `index`."""
    if reduce in ("sum", "mean"):
        value = 0
    elif element(x) in ("f32", "f16", "bf16"):
        value = -np.inf if reduce == "amax" else np.inf
    else:
        info = np.iinfo(np.dtype(f"int{element(x)[1:]}"))
        value = info.min if reduce == "amax" else info.max
    return _full(node, value, shape(index), element(x))


# ----------------------------------------------------------------------------- index_put


@rule(
    "torch.aten.index_put",
    "torch.aten.index_put.hacked_twin",
    "torch.aten._unsafe_index_put",
    "torch.aten._unsafe_index_put.hacked_twin",
)
def index_put(node: Node, x, indices, values, accumulate=False):
    """x[indices] = values (or += with accumulate): torch's advanced-indexing layout, coordinates
    for x's dims up to the last indexed one (iotas for the sliced ones between)."""
    given = {d: t for d, t in enumerate(indices) if t is not None}
    if not given:
        raise Unsupported("index_put without index tensors")
    if any(element(t) == "i1" for t in given.values()):
        raise Unsupported("index_put with a boolean mask (a data-dependent shape)")
    last = max(given)
    where = tuple(np.broadcast_shapes(*(shape(t) for t in given.values())))
    adjacent = sorted(given) == list(range(min(given), last + 1))
    sliced = [d for d in range(last) if d not in given]
    # torch puts the broadcast index dims in place of adjacent index tensors, else first
    before = [d for d in sliced if d < min(given)] if adjacent else []
    after = [d for d in sliced if d not in before]
    batch = (*(shape(x)[d] for d in before), *where, *(shape(x)[d] for d in after))
    at = len(before)  # where the index dims start in `batch`
    parts = []
    for d in range(last + 1):
        if d in given:
            t = given[d]
            lead = [1] * (len(where) - rank(t)) + list(shape(t))
            placed = [1] * at + lead + [1] * (len(batch) - at - len(where))
            parts.append(vb.reshape(as_tensor(node, t, "i64"), placed))
        else:
            position = before.index(d) if d in before else len(before) + len(where) + after.index(d)
            parts.append(position)
    rows = coordinates(node, batch, parts)
    updates = _updates(node, values, x, batch, last + 1)
    return vb.scatter(x, rows, updates, reduction="add" if accumulate else "none")
