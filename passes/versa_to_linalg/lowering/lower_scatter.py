"""convert-versa-to-linalg, continued: versa.scatter (ONNX ScatterND).

`PATTERNS` here joins `lower_indexing.PATTERNS`. A scatter is a loop over the index rows that
carries the result tensor; each iteration reads one coordinate row, wraps negative
coordinates once, and, only when the row is in range, updates one slice of the tensor:

    %y = "versa.scatter"(%x, %i, %u) {reduction = "add"}
         : (tensor<100x16xf32>, tensor<8x1xi64>, tensor<8x16xf32>) -> tensor<100x16xf32>

becomes

    %y = scf.for %n = %c0 to %c8 step %c1 iter_args(%acc = %x) -> (tensor<100x16xf32>) {
      %k = tensor.extract %i[%n, %c0] : tensor<8x1xi64>        // index_cast, + 100 if < 0
      %ok = arith.cmpi ult, %k, %c100 : index                   // out of range: dropped
      %next = scf.if %ok -> (tensor<100x16xf32>) {
        %new = tensor.extract_slice %u[%n, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
        %old = tensor.extract_slice %acc[%k, 0] [1, 16] [1, 1] : ... to tensor<16xf32>
        %sum = linalg.generic ins(%new) outs(%old) { arith.addf }  // "none": yields %new
        %r = tensor.insert_slice %sum into %acc[%k, 0] [1, 16] [1, 1]
        scf.yield %r
      } else { scf.yield %acc }
      scf.yield %next
    }

One-shot bufferization updates the carried buffer in place (the slice read and written back
is the same subview), so each iteration touches one row, and versa-vectorize turns the row's
generic into vector code. Rows of a single element (full coordinates: torch's scatter along
one dim) are a scalar `tensor.extract` / `tensor.insert` instead. The loop is serial, which
is what duplicate indices need; a splat-constant input (the zeros of a gradient) starts as a
`linalg.fill` instead of a copy of a constant.

On GPUs (`lower-to-nvvm`) the loop is neither a linalg op nor a host op, so versa-gpu-map
runs it in a single-thread kernel: correct, serial.
"""

from typing import Any

from versa.dialects import versa as dialect
from versa.mlir import arith, ir, scf, tensor

from ...common import extents
from ...common import linalg_builders as build
from ...common.rewrite import Pattern

_COMBINE = {
    "add": (arith.addf, arith.addi),
    "max": (arith.maximumf, arith.maxsi),
    "min": (arith.minimumf, arith.minsi),
}


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _init(x: ir.Value) -> ir.Value:
    """The tensor the loop starts from: a fill for a splat constant (nothing to copy), else x."""
    owner = x.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name not in ("arith.constant", "versa.constant"):
        return x
    value = owner.operation.attributes["value"]
    if not isinstance(value, ir.DenseElementsAttr) or not value.is_splat:
        return x
    element = build.element_of(x)
    return build.filled(build.shape_of(x), element, arith.constant(element, value.get_splat_value()))


def _coordinates(
    indices: ir.Value, n: ir.Value, lead: list[extents.Extent]
) -> tuple[list[ir.Value], ir.Value]:
    """Row `n` of the [N, k] indices as k index values (each wrapped once if negative), and
    whether all of them are in range (an unsigned compare also catches the still-negative)."""
    coords, ok = [], None
    for j, size in enumerate(lead):
        c = arith.index_cast(ir.IndexType.get(), tensor.extract(indices, [n, _index(j)]))
        negative = arith.cmpi(arith.CmpIPredicate.slt, c, _index(0))
        c = arith.select(negative, arith.addi(c, extents.index(size)), c)
        inside = arith.cmpi(arith.CmpIPredicate.ult, c, extents.index(size))
        ok = inside if ok is None else arith.andi(ok, inside)
        coords.append(c)
    return coords, ok


def _combine(reduction: str, new: ir.Value, old: ir.Value) -> ir.Value:
    if reduction == "none":
        return new
    on_floats, on_integers = _COMBINE[reduction]
    return on_floats(old, new) if build.is_float(new.type) else on_integers(old, new)


def _update(
    acc: ir.Value, updates: ir.Value, n: ir.Value, coords: list[ir.Value], reduction: str
) -> ir.Value:
    """`acc` with row `n` of `updates` written to (or combined into) the slice at `coords`."""
    row = build.shape_of(updates)[1:]
    if not row:  # one element per index row
        new = tensor.extract(updates, [n])
        old = tensor.extract(acc, coords) if reduction != "none" else new
        return tensor.insert(_combine(reduction, new, old), acc, coords)
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    element, ones = build.element_of(acc), [1] * len(build.shape_of(acc))
    row_type = ir.RankedTensorType.get(list(row), element)
    new = tensor.extract_slice(
        row_type, updates, [n], [], [], [dynamic] + [0] * len(row), [1, *row], [1] * (len(row) + 1)
    )
    offsets = [dynamic] * len(coords) + [0] * len(row)
    sizes = [1] * len(coords) + list(row)
    old = tensor.extract_slice(row_type, acc, coords, [], [], offsets, sizes, ones)
    identity = ir.AffineMap.get_identity(len(row))
    (value,) = build.generic(
        [new],
        [old],
        [identity, identity],
        [build.PARALLEL] * len(row),
        lambda u, o: [_combine(reduction, u, o)],
    )
    return tensor.insert_slice(value, acc, coords, [], [], offsets, sizes, ones)


def lower_scatter(op: ir.OpView, rewriter: Any) -> bool:
    """scatter(x, i, u) → scf.for over i's rows carrying the result; an in-range row updates
    one slice (scf.if), an out-of-range one is dropped. The count of index rows and the
    addressed dims of x may be dynamic; the updated rows (x's dims after those) are static."""
    x, indices, updates = op.operands
    reduction = dialect.ScatterOp.attrs(op)["reduction"]
    shape = build.shape_of(x)
    k = build.shape_of(indices)[-1]
    if not extents.is_static(shape[k:]):
        raise extents.Unsupported("dynamic dim in a scatter's updated rows: not supported")
    count = extents.product([extents.dim(indices, d) for d in range(len(build.shape_of(indices)) - 1)])
    flat_indices = build.reshape(indices, (count, k))
    flat_updates = build.reshape(updates, (count, *shape[k:]))
    lead = [extents.dim(x, d) for d in range(k)]
    loop = scf.ForOp(_index(0), extents.index(count), _index(1), [_init(x)])
    with ir.InsertionPoint(loop.body):
        n, acc = loop.induction_variable, loop.inner_iter_args[0]
        coords, ok = _coordinates(flat_indices, n, lead)
        branch = scf.IfOp(ok, [acc.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([_update(acc, flat_updates, n, coords, reduction)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([acc])
        scf.YieldOp(list(branch.results))
    rewriter.replace_op(op, list(loop.results))
    return True


PATTERNS: list[tuple[type[dialect.VersaOp], Pattern]] = [(dialect.ScatterOp, lower_scatter)]
