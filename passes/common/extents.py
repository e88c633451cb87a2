"""Extents: the size of one tensor dim while lowering, a Python int when static or an `index`
value when the dim is dynamic (`?`).

A lowering builds result tensors (`tensor.empty`, fills, reshapes) whose dynamic sizes must be
SSA values, and those values can only come from the operands: `tensor.dim` of an operand dim
the result dim equals, or index arithmetic over such dims (a concat's sum, a reshape's
product, a window's output size). This module is the one place that knows how: every builder
takes a shape as a sequence of extents, and every lowering derives its result extents here
from its operands, so a static shape stays a tuple of ints and lowers exactly as before (the
helpers fold ints and emit no op for them).

Runtime semantics this relies on (the dialect's): a dynamic dim never stretches by
broadcasting, so a `?` operand dim aligned with a result dim has the result's size.
A shape that the lowering cannot size from its operands raises `Unsupported`, which
convert-versa-to-linalg reports at the op (`'versa.X' op ... not supported`).
"""

from collections.abc import Sequence

from versa.dialects import shapes
from versa.mlir import arith, ir, tensor

from .base import PassError

Extent = int | ir.Value
DYNAMIC = ir.ShapedType.get_dynamic_size()


class Unsupported(PassError):
    """A dynamic dim this lowering cannot handle; the pattern prefixes the op's name."""


def is_static(shape: Sequence[Extent]) -> bool:
    return all(isinstance(d, int) and d != DYNAMIC for d in shape)


def type_shape(extents: Sequence[Extent]) -> list[int]:
    """The shape of a tensor type holding `extents`: values are `?`."""
    return [d if isinstance(d, int) else DYNAMIC for d in extents]


def dim(x: ir.Value, d: int) -> Extent:
    """Dim `d` of the tensor `x` (negative: from the end): its size when static, else `tensor.dim`."""
    t = ir.RankedTensorType(x.type)
    d %= t.rank
    size = t.shape[d]
    return size if size != DYNAMIC else tensor.dim(x, arith.constant(ir.IndexType.get(), d))


def of(x: ir.Value) -> list[Extent]:
    """Every dim of `x`."""
    return [dim(x, d) for d in range(ir.RankedTensorType(x.type).rank)]


def index(e: Extent) -> ir.Value:
    """`e` as an `index` value (a constant when static)."""
    return e if isinstance(e, ir.Value) else arith.constant(ir.IndexType.get(), e)


def add(a: Extent, b: Extent) -> Extent:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if _is(a, 0) or _is(b, 0):
        return b if _is(a, 0) else a
    return arith.addi(index(a), index(b))


def mul(a: Extent, b: Extent) -> Extent:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if _is(a, 1) or _is(b, 1):
        return b if _is(a, 1) else a
    return arith.muli(index(a), index(b))


def _is(e: Extent, value: int) -> bool:
    return isinstance(e, int) and e == value


def is_zero(e: Extent) -> bool:
    return _is(e, 0)


def floordiv(a: Extent, b: int) -> Extent:
    """a // b for a non-negative `a` and a positive `b`."""
    if isinstance(a, int):
        return a // b
    return a if b == 1 else arith.divui(a, index(b))


def product(extents: Sequence[Extent]) -> Extent:
    """The product, its static factors folded into one constant."""
    static, total = 1, 1
    for e in extents:
        if isinstance(e, int):
            static *= e
        else:
            total = mul(total, e)
    return mul(total, static)


def window(size: Extent, kernel: int, stride: int, pad: int, dilation: int) -> Extent:
    """Output extent of a window along one dim: (size + pad - span) // stride + 1 (`pad` both
    sides' sum; the call's shape check ensures the window fits, so the division is unsigned)."""
    span = dilation * (kernel - 1) + 1
    return add(floordiv(add(size, pad - span), stride), 1)


def unknown(e: Extent) -> bool:
    """A dynamic dim whose size is not yet a value (a `?` read off a type)."""
    return isinstance(e, int) and e == DYNAMIC


def sized(shape: Sequence[Extent], known: dict[int, Extent]) -> list[Extent]:
    """`shape` with each `unknown` dim taken from `known` (dim → extent)."""
    out: list[Extent] = []
    for d, size in enumerate(shape):
        if not unknown(size):
            out.append(size)
        elif d in known:
            out.append(known[d])
        else:
            raise Unsupported(f"dynamic dim {d} of the result has no operand to size it: not supported")
    return out


def broadcast(
    operands: Sequence[ir.Value], shape: Sequence[Extent], known: dict[int, Extent] | None = None
) -> list[Extent]:
    """The extents of `shape`, the NumPy broadcast of `operands`: each dynamic dim from
    `known`, else from the first operand whose aligned dim is dynamic too (it cannot stretch,
    so it is the size). A matmul passes its M and N as `known`: K never aligns with them."""
    known = dict(known or {})
    for x in operands:
        own = ir.RankedTensorType(x.type).shape
        lead = len(shape) - len(own)
        for i, size in enumerate(own):
            if size == DYNAMIC and unknown(shape[lead + i]) and lead + i not in known:
                known[lead + i] = dim(x, i)
    return sized(shape, known)


def reshape(x: ir.Value, shape: Sequence[int]) -> list[Extent]:
    """The extents of `shape`, a reshape of `x`: each dynamic dim is the input dim the
    dialect's rule pairs it with (`shapes.reshape_sources`), or, for the one dim a flatten
    leaves, x's element count over the static dims of `shape`."""
    if DYNAMIC not in shape:
        return list(shape)
    source = [None if d == DYNAMIC else d for d in ir.RankedTensorType(x.type).shape]
    sources = shapes.reshape_sources(source, [None if d == DYNAMIC else d for d in shape])
    known = {
        d: dim(x, origin) if origin is not None else _flattened(x, shape) for d, origin in sources.items()
    }
    return sized(shape, known)


def _flattened(x: ir.Value, shape: Sequence[int]) -> Extent:
    """The one dynamic dim of `shape` that x's element count leaves: the product of x's
    dynamic dims times (x's static product / shape's static product) when that divides (no
    division at run time: [?, 64] to [?, 8, 8]), else the whole count divided."""
    static_x = _static_product(ir.RankedTensorType(x.type).shape)
    static_y = _static_product(shape)
    if not static_y:
        raise Unsupported("reshape of dynamic dims to a shape with a static 0: not supported")
    dynamic = product([e for e in of(x) if isinstance(e, ir.Value)])
    if static_x % static_y == 0:
        return mul(dynamic, static_x // static_y)
    return floordiv(mul(dynamic, static_x), static_y)


def _static_product(shape: Sequence[int]) -> int:
    total = 1
    for d in shape:
        total *= 1 if d == DYNAMIC else d
    return total
