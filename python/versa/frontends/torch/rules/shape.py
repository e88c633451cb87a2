"""Views, permutations, slicing, concatenation, padding, flips.

Every view-like op (view, reshape, flatten, squeeze, unsqueeze, unflatten) is one
`versa.reshape` to the shape torch declared. With dynamic dims that type is all the reshape
says: each dynamic result dim is taken to be the input's dynamic dim at the same place in
order, or, when it is the only one, what the element count leaves (the dialect's
`reshape_sources`); a view whose sizes reorder dynamic dims is refused. Slices of a tensor with
dynamic dims are gathers of constant positions on a static dim (`versa.slice` names every
dim's limit, which a dynamic dim has not).
"""

import numpy as np

from versa.dialects import builders as vb
from versa.mlir import ir

from ..convert import Node, Unsupported, rule
from ..values import SymbolicInt
from . import runtime_sizes, unfold
from .common import axis, rank, shape, transpose


@rule(
    "torch.aten.view",
    "torch.aten.reshape",
    "torch.aten._unsafe_view",
    "torch.aten.flatten.using_ints",
    "torch.aten.unflatten.int",
    "torch.aten.squeeze",
    "torch.aten.squeeze.dim",
    "torch.aten.squeeze.dims",
    "torch.aten.unsqueeze",
    "torch.aten.view_as",
    "torch.aten.reshape_as",
    "torch.prims.squeeze",
    "torch.prims.collapse",
    dynamic=True,
)
def reshape(node: Node, x, *args):
    out = node.out.shape
    if shape(x) == out and out.count(None) <= 1:
        return x
    if out.count(None) > 1 and args and isinstance(args[0], list):
        _check_sources(x, node.op.operands[0], args[0], out)
    return vb.reshape(x, out)


def _check_sources(x, torch_x, sizes: list, out: tuple) -> None:
    """A view's sizes (`q.view(b, t, h, d)`): the k-th dynamic one must read x's k-th dynamic
    dim (`b, t = x.shape[:2]`; `sizes.py` makes a size read from another tensor read from x
    where x has a dim of that size) or be -1, as the reshape takes it."""
    xs = [i for i, d in enumerate(shape(x)) if d is None]
    given = [sizes[j] for j, d in enumerate(out) if d is None]

    def reads(s, i: int) -> bool:
        return isinstance(s, SymbolicInt) and s.dim == i and s.source == torch_x

    if len(given) != len(xs) or not all(s == -1 or reads(s, i) for s, i in zip(given, xs, strict=True)):
        raise Unsupported(f"a view to sizes {sizes}: its dynamic dims are not the input's, in order")


@rule("torch.aten.permute", dynamic=True)
def permute(node: Node, x, dims):
    perm = [d % rank(x) for d in dims]
    return x if perm == sorted(perm) else transpose(x, perm)


@rule("torch.aten.transpose.int", dynamic=True)
def transpose_int(node: Node, x, d0, d1):
    perm = list(range(rank(x)))
    a, b = axis(d0, x), axis(d1, x)
    perm[a], perm[b] = perm[b], perm[a]
    return x if a == b else transpose(x, perm)


@rule("torch.aten.t", "torch.aten.numpy_T", dynamic=True)
def t(node: Node, x):
    return x if rank(x) < 2 else transpose(x, list(range(rank(x)))[::-1])


@rule("torch.aten.mT", "torch.aten.mH", "torch.aten.adjoint", dynamic=True)
def matrix_transpose(node: Node, x):
    """The last two dims swapped (mH and adjoint conjugate too: real tensors here)."""
    perm = list(range(rank(x)))
    perm[-2:] = perm[-2:][::-1]
    return transpose(x, perm)


@rule("torch.aten.expand", "torch.aten.expand_as", "torch.aten.broadcast_to", dynamic=True)
def expand(node: Node, x, sizes=None, *_):
    """x broadcast; a dynamic dim x does not have (an expand to `mask.size(0)`) grows to the
    size's tensor's (`runtime_sizes.expand`)."""
    if shape(x) == node.out.shape:
        return x
    if isinstance(sizes, ir.Value):  # expand_as(x, other)
        sizes = runtime_sizes.sizes_of(sizes, node.op.operands[1])
    return runtime_sizes.expand(node, x, sizes or [])


@rule("torch.prims.broadcast_in_dim")
def broadcast_in_dim(node: Node, x, shape_, dims):
    """x's dim i becomes result dim dims[i]; the others are broadcast."""
    spread = [1] * len(node.out.shape)
    for i, d in enumerate(dims):
        spread[d] = shape(x)[i]
    return vb.broadcast_to(vb.reshape(x, spread), node.out.shape)


@rule("torch.aten.repeat")
def repeat(node: Node, x, repeats):
    """x tiled: each dim d becomes [r, d], broadcast, then merged."""
    dims = (1,) * (len(repeats) - rank(x)) + shape(x)
    spread = [s for d in dims for s in (1, d)]
    tiled = [s for r, d in zip(repeats, dims, strict=True) for s in (r, d)]
    return vb.reshape(vb.broadcast_to(vb.reshape(x, spread), tiled), node.out.shape)


@rule("torch.aten.upsample_nearest2d", "torch.aten.upsample_nearest2d.vec")
def upsample_nearest(node: Node, x, *_):
    """Nearest upsampling by whole factors: each pixel repeated, as reshape + broadcast + reshape."""
    (n, c, h, w), (oh, ow) = shape(x), node.out.shape[2:]
    if oh % h or ow % w:
        raise Unsupported("nearest upsampling by a fractional factor")
    spread = vb.reshape(x, [n, c, h, 1, w, 1])
    return vb.reshape(vb.broadcast_to(spread, [n, c, h, oh // h, w, ow // w]), node.out.shape)


def _bounds(start, end, size: int) -> tuple[int, int]:
    if not all(isinstance(b, int) for b in (start, end) if b is not None):  # a SymbolicInt
        raise Unsupported(f"slice bounds known only at run time ({start}:{end}) of a static dim")
    start = 0 if start is None else start
    end = size if end is None else end
    start = min(max(start + size if start < 0 else start, 0), size)
    end = min(max(end + size if end < 0 else end, start), size)
    return start, end


def _take(node: Node, x, d: int, positions) -> object:
    """x's elements at `positions` (a constant list) along dim d: a gather of constant indices."""
    return vb.gather(x, node.constant(np.asarray(list(positions), dtype=np.int64), "i64"), axis=d)


@rule("torch.aten.slice.Tensor", dynamic=True)
def slice_(node: Node, x, dim=0, start=None, end=None, step=1):
    d = axis(dim, x)
    if None in shape(x):
        return _dynamic_slice(node, x, d, start, end, step)
    if step is not None and step < 0:  # ONNX Slice with negative steps (torch itself has none)
        first = shape(x)[d] - 1 if start is None else start
        last = -shape(x)[d] - 1 if end is None else end
        return _take(node, x, d, range(*slice(first, last, step).indices(shape(x)[d])))
    if isinstance(end, SymbolicInt):  # a buffer of the longest length cut to the sequence's
        return runtime_sizes.slice_to(node, x, d, start, end, step)
    lo, hi = _bounds(start, end, shape(x)[d])
    if (lo, hi, step) == (0, shape(x)[d], 1):
        return x
    starts, limits, strides = [0] * rank(x), list(shape(x)), [1] * rank(x)
    starts[d], limits[d], strides[d] = lo, hi, step
    return vb.slice(x, starts=starts, limits=limits, strides=strides)


def _dynamic_slice(node: Node, x, d: int, start, end, step):
    """A slice of a tensor with dynamic dims: a gather of the positions along a static dim;
    along a dynamic one `runtime_sizes.dynamic_slice`."""
    if isinstance(end, SymbolicInt) and shape(x)[d] is not None:
        return runtime_sizes.slice_to(node, x, d, start, end, step)
    if shape(x)[d] is None:
        return runtime_sizes.dynamic_slice(node, x, d, start, end, step, node.op.operands[0])
    if any(isinstance(v, SymbolicInt) for v in (start, end, step)):
        raise Unsupported(f"a slice with run-time bounds ({start}:{end}:{step})")
    if step is None or step > 0:
        return _take(node, x, d, range(*_bounds(start, end, shape(x)[d]), step or 1))
    raise Unsupported("a slice of a dynamic tensor with a negative step")


@rule("torch.aten.narrow", dynamic=True)
def narrow(node: Node, x, dim, start, length):
    if isinstance(start, SymbolicInt) or isinstance(length, SymbolicInt):
        raise Unsupported(f"narrow with run-time bounds ({start}, {length})")
    return slice_(node, x, dim, start, start + length, 1)


@rule("torch.aten.select.int", dynamic=True)
def select_int(node: Node, x, dim, index):
    d = axis(dim, x)
    if None in shape(x):  # a gather of one position: x[:, 0] with a dynamic batch
        if isinstance(index, SymbolicInt) or (shape(x)[d] is None and index < 0):
            raise Unsupported(f"index {index} into a dynamic dim (run-time or from the end)")
        index = index if shape(x)[d] is None else index % shape(x)[d]
        return vb.gather(x, node.constant(np.asarray(index, dtype=np.int64), "i64"), axis=d)
    index = index % shape(x)[d]
    starts, limits = [0] * rank(x), list(shape(x))
    starts[d], limits[d] = index, index + 1
    return vb.reshape(vb.slice(x, starts=starts, limits=limits), node.out.shape)


@rule("torch.aten.cat", "torch.aten.concat", dynamic=True)
def cat(node: Node, tensors, dim=0):
    tensors = [t for t in tensors if 0 not in shape(t) or rank(t) != 1]  # torch skips legacy empty [0]
    if len(tensors) == 1:
        return tensors[0]
    return vb.concat(tensors, axis=axis(dim, tensors[0]))


@rule("torch.aten.stack", dynamic=True)
def stack(node: Node, tensors, dim=0):
    d = dim % (rank(tensors[0]) + 1)
    parts = [vb.reshape(t, shape(t)[:d] + (1,) + shape(t)[d:]) for t in tensors]
    return parts[0] if len(parts) == 1 else vb.concat(parts, axis=d)


def _split(node: Node, x, d: int, sizes: list[int]) -> list:
    """Consecutive pieces of `sizes` along dim d; with dynamic dims (a fused qkv projection's
    split under a dynamic batch and sequence) each a gather of its positions, as a slice is."""
    if None in shape(x) and shape(x)[d] is None:
        raise Unsupported("a split along a dynamic dim")
    parts, start = [], 0
    for size in sizes:
        if None in shape(x):
            parts.append(_take(node, x, d, range(start, start + size)))
        else:
            starts, limits = [0] * rank(x), list(shape(x))
            starts[d], limits[d] = start, start + size
            parts.append(vb.slice(x, starts=starts, limits=limits))
        start += size
    return parts


@rule("torch.aten.split.Tensor", "torch.aten.unsafe_split.Tensor", dynamic=True)
def split(node: Node, x, size, dim=0):
    d = axis(dim, x)
    n = shape(x)[d]
    if n is None:
        raise Unsupported("a split along a dynamic dim")
    return [_split(node, x, d, [min(size, n - s) for s in range(0, n, size)])]


@rule("torch.aten.split_with_sizes", "torch.aten.unsafe_split_with_sizes", dynamic=True)
def split_with_sizes(node: Node, x, sizes, dim=0):
    return [_split(node, x, axis(dim, x), list(sizes))]


@rule("torch.aten.chunk", "torch.aten.unsafe_chunk", dynamic=True)
def chunk(node: Node, x, chunks, dim=0):
    d = axis(dim, x)
    if shape(x)[d] is None:
        raise Unsupported("a chunk along a dynamic dim")
    size = -(-shape(x)[d] // chunks)
    return split(node, x, size, d)


@rule("torch.aten.unbind.int", dynamic=True)
def unbind(node: Node, x, dim=0):
    d = axis(dim, x)
    if None in shape(x):  # q, k, v = qkv.unbind(0) with a dynamic batch: a gather per position
        if shape(x)[d] is None:
            raise Unsupported("unbind along a dynamic dim (a run-time number of results)")
        at = [node.constant(np.asarray(i, dtype=np.int64), "i64") for i in range(shape(x)[d])]
        return [[vb.gather(x, i, axis=d) for i in at]]
    parts = _split(node, x, d, [1] * shape(x)[d])
    return [[vb.reshape(p, shape(x)[:d] + shape(x)[d + 1 :]) for p in parts]]


@rule("torch.prim.ListUnpack", dynamic=True)
def list_unpack(node: Node, items):
    return list(items)


@rule("torch.aten.__getitem__.t", dynamic=True)
def getitem(node: Node, items, index):
    return items[index]


@rule("torch.aten.constant_pad_nd", "torch.aten.pad")
def constant_pad(node: Node, x, pads, mode_or_value=0.0, value=None):
    if mode_or_value in ("reflect", "replicate", "circular"):  # F.pad's modes as one aten.pad (torch.export)
        return unfold.pad_edges(node, x, list(pads), mode_or_value)
    if isinstance(mode_or_value, str):
        if mode_or_value != "constant":
            raise Unsupported(f"padding mode {mode_or_value!r}")
        mode_or_value = 0.0 if value is None else value
    low, high = [0] * rank(x), [0] * rank(x)
    for i in range(len(pads) // 2):  # pairs from the last dim backwards
        low[rank(x) - 1 - i], high[rank(x) - 1 - i] = pads[2 * i], pads[2 * i + 1]
    if min(low + high) < 0:  # negative padding crops: slice first, then pad what is positive
        starts = [max(-lo, 0) for lo in low]
        limits = [n - max(-hi, 0) for n, hi in zip(shape(x), high, strict=True)]
        x = vb.slice(x, starts=starts, limits=limits)
        low, high = [max(lo, 0) for lo in low], [max(hi, 0) for hi in high]
        if not any(low + high):
            return x
    return vb.pad(x, low=low, high=high, value=float(mode_or_value))


@rule("torch.aten.flip")
def flip(node: Node, x, dims):
    for d in sorted({axis(d, x) for d in dims}):
        x = _take(node, x, d, range(shape(x)[d] - 1, -1, -1))
    return x


@rule("torch.aten.roll")
def roll(node: Node, x, shifts, dims=()):
    """Per dim, the last `shift` elements then the rest (two slices, one concat); without dims
    the flattened tensor rolls and takes x's shape back, as torch."""
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims or ())
    if not dims:
        if len(shifts) != 1:
            raise Unsupported("roll without dims of more than one shift")
        flat = vb.reshape(x, [int(np.prod(shape(x)))])
        return vb.reshape(roll(node, flat, shifts, [0]), list(shape(x)))
    for shift, dim in zip(shifts, dims, strict=True):
        d = axis(dim, x)
        n = shape(x)[d]
        k = shift % n if n else 0
        if k:
            tail, head = _split(node, x, d, [n - k, k])
            x = vb.concat([head, tail], axis=d)
    return x


@rule("torch.aten.broadcast_tensors")
def broadcast_tensors(node: Node, tensors):
    """One list result (F.mse_loss and l1_loss broadcast their operands first)."""
    dims = tuple(np.broadcast_shapes(*[shape(t) for t in tensors]))
    return [[t if shape(t) == dims else vb.broadcast_to(t, list(dims)) for t in tensors]]
