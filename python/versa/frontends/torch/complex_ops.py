"""The real form of each complex ATen op, on pairs (a trailing dim of 2: view_as_real's layout).

Each handler gets the `complex_to_real` rewriter and the op's arguments (old-graph nodes) and
returns the new-graph node: the real pair of a complex result, or the real result itself
(view_as_real, real, imag, abs). Dim arguments are normalised first: the pair dim stays last.
"""

from collections.abc import Callable

import torch
from torch.fx import Node

aten = torch.ops.aten


class Unhandled(Exception):
    """A complex op without a real form here: the graph stays as it is."""


def is_complex(v) -> bool:
    """A complex tensor, or a tuple/list holding one (a node's meta["val"])."""
    if isinstance(v, tuple | list):
        return any(map(is_complex, v))
    return isinstance(v, torch.Tensor) and v.is_complex()


def value(node):
    """The (fake) value of a graph node; other arguments (numbers, lists) as they are."""
    return node.meta.get("val") if isinstance(node, Node) else node


def _complex_node(x) -> bool:
    return isinstance(x, Node) and is_complex(value(x))


def _identity(rw, x, *_, **__):
    return rw.pair(x)


def _mul(rw, a, b):
    if not _complex_node(a):
        a, b = b, a
    if isinstance(b, Node) and not _complex_node(b):  # a real tensor scales both parts
        return rw.mul(rw.pair(a), rw(aten.unsqueeze.default, rw.copies[b], -1))
    if isinstance(b, int | float):
        return rw.mul(rw.pair(a), b)
    (ar, ai), (br, bi) = rw.parts(a), rw.parts(b)
    return rw.join(rw.sub(rw.mul(ar, br), rw.mul(ai, bi)), rw.add(rw.mul(ar, bi), rw.mul(ai, br)))


def _div(rw, a, b):
    if _complex_node(b):  # a · conj(b) / |b|²
        (ar, ai), (br, bi) = rw.parts(a), rw.parts(b)
        norm = rw.add(rw.mul(br, br), rw.mul(bi, bi))
        re, im = rw.add(rw.mul(ar, br), rw.mul(ai, bi)), rw.sub(rw.mul(ai, br), rw.mul(ar, bi))
        return rw.join(rw(aten.div.Tensor, re, norm), rw(aten.div.Tensor, im, norm))
    if isinstance(b, Node):
        return rw(aten.div.Tensor, rw.pair(a), rw(aten.unsqueeze.default, rw.copies[b], -1))
    if isinstance(b, complex):
        raise Unhandled("division by a complex number")
    return rw(aten.div.Tensor, rw.pair(a), b)


def _add_sub(target):
    def convert(rw, a, b, alpha=1):
        return rw(target, rw.pair(a), rw.pair(b), alpha=alpha)

    return convert


def _conj(rw, x):
    re, im = rw.parts(x)
    return rw.join(re, rw(aten.neg.default, im))


def _polar(rw, magnitude, angle):
    magnitude, angle = rw.copies[magnitude], rw.copies[angle]
    return rw.join(
        rw.mul(magnitude, rw(aten.cos.default, angle)), rw.mul(magnitude, rw(aten.sin.default, angle))
    )


def _exp(rw, x):
    re, im = rw.parts(x)
    scale = rw(aten.exp.default, re)
    return rw.join(rw.mul(scale, rw(aten.cos.default, im)), rw.mul(scale, rw(aten.sin.default, im)))


def _abs(rw, x):
    re, im = rw.parts(x)
    return rw(aten.sqrt.default, rw.add(rw.mul(re, re), rw.mul(im, im)))


def _to_copy(rw, x, **kwargs):
    if kwargs.get("dtype") not in (None, value(x).dtype):
        raise Unhandled("a complex dtype conversion")
    return rw.pair(x)


_REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}


def _zeros(rw, size, *, dtype=None, **kwargs):
    """A complex zeros tensor (a Fourier layer's spectrum buffer) is a real one with the pair dim."""
    if dtype not in _REAL:
        raise Unhandled(f"zeros of dtype {dtype}")
    return rw.factory(aten.zeros.default, [*size, 2], dtype=_REAL[dtype], **kwargs)


def _zeros_like(rw, x, *, dtype=None, **kwargs):
    if dtype not in (None, value(x).dtype):
        raise Unhandled("zeros_like with another dtype")
    return rw(aten.zeros_like.default, rw.pair(x), **kwargs)


# views and reductions: the pair dim stays last, every dim argument is normalised first
def _view(rw, x, size):
    return rw(aten.reshape.default, rw.pair(x), [*size, 2])


def _flatten(rw, x, start=0, end=-1):
    n = max(rw.rank(x), 1)
    return rw(aten.flatten.using_ints, rw.pair(x), start % n, end % n)


def _unsqueeze(rw, x, dim):
    return rw(aten.unsqueeze.default, rw.pair(x), dim % (rw.rank(x) + 1))


def _squeeze(rw, x, dims=None):
    shape = value(x).shape
    dims = [d for d in range(len(shape)) if shape[d] == 1] if dims is None else dims
    dims = [dims] if isinstance(dims, int) else dims
    return rw(aten.squeeze.dims, rw.pair(x), [d % max(len(shape), 1) for d in dims])


def _permute(rw, x, dims):
    n = rw.rank(x)
    return rw(aten.permute.default, rw.pair(x), [d % n for d in dims] + [n])


def _transpose(rw, x, a=0, b=1):
    n = rw.rank(x)
    return rw(aten.transpose.int, rw.pair(x), a % n, b % n)


def _expand(rw, x, size, implicit=False):
    return rw(aten.expand.default, rw.pair(x), [*size, 2])


def _slice(rw, x, dim=0, start=None, end=None, step=1):
    return rw(aten.slice.Tensor, rw.pair(x), dim % rw.rank(x), start, end, step)


def _select(rw, x, dim, index):
    return rw(aten.select.int, rw.pair(x), dim % rw.rank(x), index)


def _cat(rw, tensors, dim=0):
    return rw(aten.cat.default, [rw.pair(t) for t in tensors], dim % rw.rank(tensors[0]))


def _reduce(target):
    def convert(rw, x, dims=None, keepdim=False, **kwargs):
        if kwargs.get("dtype") is not None:
            raise Unhandled("a complex reduction with a dtype")
        n = rw.rank(x)
        dims = list(range(n)) if not dims else [d % n for d in dims]
        return rw(target, rw.pair(x), dims, keepdim)

    return convert


HANDLERS: dict[object, Callable] = {
    aten.view_as_complex: lambda rw, x: rw.copies[x],
    aten.view_as_real: _identity,
    aten.real: lambda rw, x: rw.parts(x)[0],
    aten.imag: lambda rw, x: rw.parts(x)[1],
    aten.complex: lambda rw, re, im: rw.join(rw.copies[re], rw.copies[im]),
    aten.polar: _polar,
    aten.abs: _abs,
    aten.exp: _exp,
    aten.neg: lambda rw, x: rw(aten.neg.default, rw.pair(x)),
    aten.mul: _mul,
    aten.div: _div,
    aten.add: _add_sub(aten.add.Tensor),
    aten.sub: _add_sub(aten.sub.Tensor),
    aten._conj: _conj,
    aten.conj: _conj,
    aten.conj_physical: _conj,
    aten._to_copy: _to_copy,
    aten.zeros: _zeros,
    aten.zeros_like: _zeros_like,
    aten.view: _view,
    aten._unsafe_view: _view,
    aten.reshape: _view,
    aten.flatten: _flatten,
    aten.unsqueeze: _unsqueeze,
    aten.squeeze: _squeeze,
    aten.permute: _permute,
    aten.transpose: _transpose,
    aten.t: lambda rw, x: _transpose(rw, x, 0, 1) if rw.rank(x) == 2 else rw.pair(x),
    aten.expand: _expand,
    aten.slice: _slice,
    aten.select: _select,
    aten.cat: _cat,
    aten.sum: _reduce(aten.sum.dim_IntList),
    aten.mean: _reduce(aten.mean.dim),
}
for _op in (aten.clone, aten.alias, aten.detach, aten.contiguous, aten.resolve_conj, aten.lift_fresh_copy):
    HANDLERS[_op] = _identity
