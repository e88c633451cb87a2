"""Builders over the linalg, tensor and arith bindings, shared by convert-versa-to-linalg.

Everything here builds at the current insertion point and location (the rewriter sets both).
A shape a builder creates is a sequence of extents (`extents.Extent`: an int, or an `index`
value for a dynamic dim), so that `tensor.empty` and reshapes get their dynamic sizes; a
static shape is a tuple of ints and builds exactly the ops it always did.

A copy into part of a tensor is a bare `tensor.insert_slice`: bufferized, it is a strided
`memref.copy` into a subview of the destination, which `versa-lower-memref-copy` turns into
loops. (An `extract_slice` of the destination + `linalg.copy` + `insert_slice` would do the
same, but after `cse` merges two equal destinations the shared `extract_slice` forces
bufferization to copy a whole buffer.)
"""

from collections.abc import Callable, Sequence

import numpy as np
from versa.mlir import arith, ir, linalg, tensor

from . import extents
from .extents import Extent

Shape = tuple[int, ...]
Extents = Sequence[Extent]
Body = Callable[..., Sequence[ir.Value]]

PARALLEL = "parallel"
REDUCTION = "reduction"


def is_float(t: ir.Type) -> bool:
    """A float scalar, or a vector of floats (the scalar emitters also run on vectors)."""
    return isinstance(t.element_type if isinstance(t, ir.VectorType) else t, ir.FloatType)


def shape_of(v: ir.Value) -> Shape:
    return tuple(ir.RankedTensorType(v.type).shape)


def element_of(v: ir.Value) -> ir.Type:
    return ir.RankedTensorType(v.type).element_type


# ----------------------------------------------------------------------------- scalars


def is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def scalar(element: ir.Type, value: float) -> ir.Value:
    """`arith.constant value : element`; for integers, `value` is truncated toward zero; for
    i1 it is `value != 0` (as NumPy's cast to bool). A vector type gives a splat vector."""
    if isinstance(element, ir.VectorType):
        lane = _attribute(element.element_type, value)
        return arith.constant(element, ir.DenseElementsAttr.get_splat(element, lane))
    return arith.constant(element, _attribute(element, value))


def _attribute(element: ir.Type, value: float) -> ir.Attribute:
    if is_float(element):
        return ir.FloatAttr.get(element, float(value))
    return ir.IntegerAttr.get(element, int(value != 0) if is_bool(element) else int(value))


def lowest(element: ir.Type) -> ir.Value:
    """The identity of max: -inf for floats, the smallest signed integer otherwise."""
    if is_float(element):
        return scalar(element, float("-inf"))
    return scalar(element, -(1 << (ir.IntegerType(element).width - 1)))


def convert(v: ir.Value, to: ir.Type) -> ir.Value:
    """Scalar element-type conversion, as C, torch and NumPy's astype: floats truncate toward
    zero when converted to integers (NaN and out-of-range values give unspecified results),
    integers round to the nearest float, integers sign-extend or truncate; anything converts to
    i1 as `!= 0` (NaN is true), and i1 converts to 0 or 1 (never the signed -1)."""
    src = v.type
    if src == to:
        return v
    if is_bool(to):
        zero = scalar(src, 0)
        if is_float(src):
            return arith.cmpf(arith.CmpFPredicate.UNE, v, zero)
        return arith.cmpi(arith.CmpIPredicate.ne, v, zero)
    if is_float(src) and is_float(to):
        width, target = ir.FloatType(src).width, ir.FloatType(to).width
        if width == target:  # f16 <-> bf16 goes through f32
            return arith.truncf(to, arith.extf(ir.F32Type.get(), v))
        return arith.extf(to, v) if width < target else arith.truncf(to, v)
    if is_float(to):
        return arith.uitofp(to, v) if is_bool(src) else arith.sitofp(to, v)
    if is_float(src):
        return arith.fptosi(to, v)
    if is_bool(src):
        return arith.extui(to, v)
    wider = ir.IntegerType(to).width > ir.IntegerType(src).width
    return arith.extsi(to, v) if wider else arith.trunci(to, v)


def multiply_add(a: ir.Value, b: ir.Value, acc: ir.Value) -> list[ir.Value]:
    """The body of every contraction: acc + a * b, in the accumulator's type (`accumulator`)."""
    return [arith.addf(acc, arith.mulf(convert(a, acc.type), convert(b, acc.type)))]


def accumulator(element: ir.Type) -> ir.Type:
    """The type a contraction of `element`s sums in: f32 for f16 and bf16, as PyTorch's CPU
    and cuBLAS kernels do (an f16 sum of 4096 products near 0.25 stalls at 1024, 10% low);
    the element type otherwise."""
    if is_float(element) and ir.FloatType(element).width < 32:
        return ir.F32Type.get()
    return element


def rounded(y: ir.Value, element: ir.Type) -> ir.Value:
    """`y` (a contraction's result in its accumulator type) rounded once to `element`."""
    if element_of(y) == element:
        return y
    return elementwise([y], shape_of(y), [element], lambda v: [convert(v, element)])[0]


# ----------------------------------------------------------------------------- tensors


def dense(array: np.ndarray) -> ir.Value:
    """A constant tensor holding `array` (its dtype gives the element type)."""
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array))
    return arith.constant(attr.type, attr)


def empty(shape: Extents, element: ir.Type) -> ir.Value:
    """`tensor.empty` of `shape`; a dynamic dim must be given as its `index` value."""
    extents.sized(shape, {})  # raises Unsupported on a `?` without a value
    return tensor.empty(list(shape), element)


def _mixed(values: Sequence[Extent]) -> tuple[list[ir.Value], list[int]]:
    """(dynamic operands, static list with `?` for them) of a mixed offsets or sizes list."""
    return [v for v in values if isinstance(v, ir.Value)], extents.type_shape(values)


def filled(shape: Extents, element: ir.Type, value: ir.Value | float) -> ir.Value:
    """`linalg.fill` of a fresh tensor: the init of every reduction and contraction."""
    if not isinstance(value, ir.Value):
        value = scalar(element, value)
    return linalg.fill(value, outs=[empty(shape, element)])


def copy_into(x: ir.Value, dest: ir.Value, offsets: Sequence[int]) -> ir.Value:
    """`dest` with `x` written at `offsets` (one `tensor.insert_slice`)."""
    (offset_values, static_offsets), (size_values, sizes) = _mixed(offsets), _mixed(extents.of(x))
    ones = [1] * len(offsets)
    return tensor.insert_slice(x, dest, offset_values, size_values, [], static_offsets, sizes, ones)


def extract(x: ir.Value, offsets: Sequence[Extent], sizes: Extents) -> ir.Value:
    """The slice of `x` at `offsets` with `sizes` (unit strides; either may hold index values).
    A slice without elements is an empty tensor: `tensor.extract_slice` rejects any offset into
    a dim of size 0, and there is nothing to read."""
    if any(isinstance(s, int) and s == 0 for s in sizes):
        return empty(sizes, element_of(x))
    (offset_values, static_offsets), (size_values, static_sizes) = _mixed(offsets), _mixed(sizes)
    result = ir.RankedTensorType.get(static_sizes, element_of(x))
    ones = [1] * len(sizes)
    return tensor.extract_slice(result, x, offset_values, size_values, [], static_offsets, static_sizes, ones)


def pad(x: ir.Value, low: Sequence[int], high: Sequence[int], value: ir.Value) -> ir.Value:
    """Constant padding: `x` copied into the interior of a filled tensor."""
    if not any(low) and not any(high):
        return x
    shape = [extents.add(d, lo + hi) for d, lo, hi in zip(extents.of(x), low, high, strict=True)]
    return copy_into(x, filled(shape, element_of(x), value), low)


def _reassociation(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in group]) for group in groups]
    )


def expand(x: ir.Value, shape: Extents, groups: Sequence[Sequence[int]]) -> ir.Value:
    """`tensor.expand_shape`; a dynamic dim of `shape` is its value (the op's output_shape)."""
    values, static = _mixed(shape)
    result = ir.RankedTensorType.get(static, element_of(x))
    return tensor.expand_shape(result, x, _reassociation(groups), values, static)


def collapse(x: ir.Value, shape: Extents, groups: Sequence[Sequence[int]]) -> ir.Value:
    result = ir.RankedTensorType.get(extents.type_shape(shape), element_of(x))
    return tensor.collapse_shape(result, x, _reassociation(groups))


def reshape(x: ir.Value, shape: Extents) -> ir.Value:
    """Any reshape: collapse to 1-D, then expand; rank 0 expands or collapses directly. A
    dynamic dim of `shape` is its value (`extents`), the 1-D extent the product of x's."""
    source, shape = shape_of(x), tuple(shape)
    if source == shape:
        return x
    if not source or not shape:
        return expand(x, shape, []) if not source else collapse(x, shape, [])
    flat = x if len(source) == 1 else collapse(x, (extents.product(extents.of(x)),), [range(len(source))])
    return flat if len(shape) == 1 else expand(flat, shape, [range(len(shape))])


def keepdims_groups(rank: int, axes: Sequence[int]) -> list[list[int]]:
    """expand_shape reassociation that re-inserts the size-1 `axes` next to the kept dims."""
    groups: list[list[int]] = []
    leading: list[int] = []
    for d in range(rank):
        if d not in axes:
            groups.append([*leading, d])
            leading = []
        elif groups:
            groups[-1].append(d)
        else:
            leading.append(d)
    return groups


# ----------------------------------------------------------------------------- linalg.generic


def broadcast_exprs(operand: Shape, out: Extents) -> list[ir.AffineExpr]:
    """NumPy broadcasting: leading dims dropped, stretched size-1 dims read index 0. A dynamic
    operand dim never stretches (it reads the loop dim); a static 1 against a dynamic result
    dim reads index 0 (whatever its size at run time)."""
    out = extents.type_shape(out)
    lead = len(out) - len(operand)
    return [
        ir.AffineConstantExpr.get(0) if size == 1 and out[lead + i] != 1 else ir.AffineDimExpr.get(lead + i)
        for i, size in enumerate(operand)
    ]


def broadcast_map(operand: Shape, out: Extents) -> ir.AffineMap:
    return ir.AffineMap.get(len(out), 0, broadcast_exprs(operand, out))


def dims_map(n_dims: int, dims: Sequence[int]) -> ir.AffineMap:
    """`(d0, ..., dn-1) -> (d[dims[0]], d[dims[1]], ...)`."""
    return ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in dims])


def generic(
    inputs: Sequence[ir.Value],
    outputs: Sequence[ir.Value],
    maps: Sequence[ir.AffineMap],
    iterators: Sequence[str],
    body: Body,
) -> list[ir.Value]:
    """One `linalg.generic`; `body(*input_scalars, *output_scalars)` returns the yielded values."""
    op = linalg.GenericOp(
        result_tensors=[o.type for o in outputs],
        inputs=list(inputs),
        outputs=list(outputs),
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]
        ),
    )
    block = op.regions[0].blocks.append(*(element_of(v) for v in (*inputs, *outputs)))
    with ir.InsertionPoint(block):
        linalg.YieldOp(list(body(*block.arguments)))
    return list(op.results)


def elementwise(
    inputs: Sequence[ir.Value], out_shape: Extents, out_elements: Sequence[ir.Type], body: Body
) -> list[ir.Value]:
    """A parallel `linalg.generic` over `out_shape`, every input broadcast NumPy-style.

    `body` gets the input scalars only: the outputs are write-only. A dynamic dim of
    `out_shape` (`?`) is sized from the inputs (`extents.broadcast`).
    """
    sizes = extents.broadcast(inputs, out_shape)
    outputs = [empty(sizes, e) for e in out_elements]
    maps = [broadcast_map(shape_of(v), out_shape) for v in inputs]
    maps += [ir.AffineMap.get_identity(len(out_shape))] * len(outputs)
    n = len(inputs)
    return generic(inputs, outputs, maps, [PARALLEL] * len(out_shape), lambda *args: body(*args[:n]))


def reduce(
    x: ir.Value, axes: Sequence[int], init: ir.Value, combine: Callable[[ir.Value, ir.Value], ir.Value]
) -> ir.Value:
    """Reduce `x` over `axes` (non-negative) into `init`, whose shape is x's without them."""
    rank = len(shape_of(x))
    kept = [d for d in range(rank) if d not in axes]
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]
    maps = [ir.AffineMap.get_identity(rank), dims_map(rank, kept)]
    return generic([x], [init], maps, iterators, lambda v, acc: [combine(v, acc)])[0]


def broadcast_matmul(a: ir.Value, b: ir.Value, init: ir.Value) -> ir.Value:
    """Loops (batch..., m, n, k); each operand's batch dims broadcast against the result's."""
    batch = shape_of(init)[:-2]
    n_dims = len(batch) + 3
    m, n, k = (ir.AffineDimExpr.get(len(batch) + i) for i in range(3))

    def operand_map(v: ir.Value, inner: list[ir.AffineExpr]) -> ir.AffineMap:
        return ir.AffineMap.get(n_dims, 0, [*broadcast_exprs(shape_of(v)[:-2], batch), *inner])

    maps = [operand_map(a, [m, k]), operand_map(b, [k, n]), dims_map(n_dims, range(n_dims - 1))]
    iterators = [PARALLEL] * (n_dims - 1) + [REDUCTION]
    return generic([a, b], [init], maps, iterators, multiply_add)[0]
