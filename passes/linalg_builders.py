"""Small builders over the linalg, tensor and arith bindings, shared by the versa lowerings.

Everything here builds at the current insertion point and location (the rewriter sets both).
Shapes are static tuples: the versa dialect has no dynamic dims.
"""

from collections.abc import Callable, Sequence

import numpy as np

from versa.mlir import arith, ir, linalg, tensor

Shape = tuple[int, ...]
Body = Callable[..., Sequence[ir.Value]]

PARALLEL = "parallel"
REDUCTION = "reduction"


def is_float(t: ir.Type) -> bool:
    return isinstance(t, ir.FloatType)


def shape_of(v: ir.Value) -> Shape:
    return tuple(ir.RankedTensorType(v.type).shape)


def element_of(v: ir.Value) -> ir.Type:
    return ir.RankedTensorType(v.type).element_type


def scalar(element: ir.Type, value: float) -> ir.Value:
    """`arith.constant value : element`; for integers, `value` is truncated toward zero."""
    if is_float(element):
        return arith.constant(element, ir.FloatAttr.get(element, float(value)))
    return arith.constant(element, ir.IntegerAttr.get(element, int(value)))


def lowest(element: ir.Type) -> ir.Value:
    """The identity of max: -inf for floats, the smallest signed integer otherwise."""
    if is_float(element):
        return scalar(element, float("-inf"))
    return scalar(element, -(1 << (ir.IntegerType(element).width - 1)))


def dense(array: np.ndarray) -> ir.Value:
    """A constant tensor holding `array` (its dtype gives the element type)."""
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array))
    return arith.constant(attr.type, attr)


def empty(shape: Shape, element: ir.Type) -> ir.Value:
    return tensor.empty(list(shape), element)


def filled(shape: Shape, element: ir.Type, value: ir.Value | float) -> ir.Value:
    """`linalg.fill` of a fresh tensor: the init of every reduction and contraction."""
    if not isinstance(value, ir.Value):
        value = scalar(element, value)
    return linalg.fill(value, outs=[empty(shape, element)])


def broadcast_map(operand: Shape, out: Shape) -> ir.AffineMap:
    """NumPy broadcasting as an indexing map: leading dims dropped, stretched size-1 dims → 0."""
    lead = len(out) - len(operand)
    exprs = [ir.AffineConstantExpr.get(0) if size == 1 and out[lead + i] != 1
             else ir.AffineDimExpr.get(lead + i) for i, size in enumerate(operand)]
    return ir.AffineMap.get(len(out), 0, exprs)


def dims_map(n_dims: int, dims: Sequence[int]) -> ir.AffineMap:
    """`(d0, ..., dn-1) -> (d[dims[0]], d[dims[1]], ...)`."""
    return ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in dims])


def generic(inputs: Sequence[ir.Value], outputs: Sequence[ir.Value],
            maps: Sequence[ir.AffineMap], iterators: Sequence[str], body: Body) -> list[ir.Value]:
    """One `linalg.generic`; `body(*input_scalars, *output_scalars)` returns the yielded values."""
    op = linalg.GenericOp(
        result_tensors=[o.type for o in outputs], inputs=list(inputs), outputs=list(outputs),
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]))
    block = op.regions[0].blocks.append(*(element_of(v) for v in (*inputs, *outputs)))
    with ir.InsertionPoint(block):
        linalg.YieldOp(list(body(*block.arguments)))
    return list(op.results)


def elementwise(inputs: Sequence[ir.Value], out_shape: Shape, out_elements: Sequence[ir.Type],
                body: Body) -> list[ir.Value]:
    """A parallel `linalg.generic` over `out_shape`, every input broadcast NumPy-style.

    `body` gets the input scalars only (the outputs are write-only).
    """
    outputs = [empty(out_shape, e) for e in out_elements]
    maps = [broadcast_map(shape_of(v), out_shape) for v in inputs]
    maps += [ir.AffineMap.get_identity(len(out_shape))] * len(outputs)
    n = len(inputs)
    return generic(inputs, outputs, maps, [PARALLEL] * len(out_shape),
                   lambda *args: body(*args[:n]))


def reduce(x: ir.Value, axes: Sequence[int], init: ir.Value,
           combine: Callable[[ir.Value, ir.Value], ir.Value]) -> ir.Value:
    """Reduce `x` over `axes` (non-negative) into `init`, whose shape is x's without them."""
    rank = len(shape_of(x))
    kept = [d for d in range(rank) if d not in axes]
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]
    maps = [ir.AffineMap.get_identity(rank), dims_map(rank, kept)]
    return generic([x], [init], maps, iterators, lambda v, acc: [combine(v, acc)])[0]


def pad(x: ir.Value, low: Sequence[int], high: Sequence[int], value: ir.Value) -> ir.Value:
    """`tensor.pad` with a constant; no-op when there is nothing to pad."""
    if not any(low) and not any(high):
        return x
    shape = tuple(d + lo + hi for d, lo, hi in zip(shape_of(x), low, high, strict=True))
    result = ir.RankedTensorType.get(shape, element_of(x))
    op = tensor.PadOp(result, x, [], [], list(low), list(high))
    block = op.regions[0].blocks.append(*[ir.IndexType.get()] * len(shape))
    with ir.InsertionPoint(block):
        tensor.YieldOp(value)
    return op.result


def reassociation(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)
                                               for d in group]) for group in groups])


def expand(x: ir.Value, shape: Shape, groups: Sequence[Sequence[int]]) -> ir.Value:
    result = ir.RankedTensorType.get(shape, element_of(x))
    return tensor.expand_shape(result, x, reassociation(groups), [], list(shape))


def collapse(x: ir.Value, shape: Shape, groups: Sequence[Sequence[int]]) -> ir.Value:
    result = ir.RankedTensorType.get(shape, element_of(x))
    return tensor.collapse_shape(result, x, reassociation(groups))


def reshape(x: ir.Value, shape: Shape) -> ir.Value:
    """Any static reshape: collapse to 1-D, then expand; rank 0 expands or collapses directly."""
    source, shape = shape_of(x), tuple(shape)
    if source == shape:
        return x
    if not source or not shape:
        return expand(x, shape, []) if not source else collapse(x, shape, [])
    flat = x if len(source) == 1 else collapse(x, (int(np.prod(source)),), [range(len(source))])
    return flat if len(shape) == 1 else expand(flat, shape, [range(len(shape))])
