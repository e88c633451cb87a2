"""versa-gpu-reduce: reductions over the innermost dimension as one thread block per result.

With one thread per output element (`versa-gpu-map`), a row sum of 4096x4096 runs 4096
threads that each walk a row: neighbouring threads read addresses a row apart (uncoalesced)
and most of the GPU idles. Here a `linalg.generic` whose innermost loop is a reduction gets a
block of threads per output element instead: thread t combines elements t, t+B, t+2B, ... of
the reduced range (neighbouring threads read neighbouring elements), then `gpu.all_reduce`
combines the block's partial results (shuffles and shared memory, lowered by
`convert-gpu-to-nvvm`) and thread 0 folds the total into the output. The body is cloned as it
is, so fused producers (`exp(x - max)`) run inside the loop. Reductions over outer dimensions
keep one thread per output element: there the parallel dimension is the contiguous one.

    linalg.generic {iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x1000xf32>)
  → gpu.launch blocks(64) threads(256) { scf.for %r = %tx to 1000 step 256 {...}; gpu.all_reduce add }
"""

import math
from dataclasses import dataclass

from versa.mlir import affine, arith, gpu, ir, memref, scf

from ..common.base import Pass, PassError, collect
from .kernels.launch import delinearize, index, launch

# Combiners gpu.all_reduce implements, by the arith op that a reduction body yields.
_KINDS = {
    "arith.addf": "add", "arith.addi": "add", "arith.mulf": "mul", "arith.muli": "mul",
    "arith.maximumf": "maximumf", "arith.minimumf": "minimumf", "arith.maxnumf": "maxnumf",
    "arith.minnumf": "minnumf", "arith.maxsi": "maxsi", "arith.minsi": "minsi",
    "arith.maxui": "maxui", "arith.minui": "minui", "arith.andi": "and", "arith.ori": "or",
    "arith.xori": "xor",
}  # fmt: skip
_MIN_EXTENT = 64  # shorter reductions: a thread per result is as good


@dataclass(frozen=True)
class _Reduction:
    op: ir.Operation
    combiner: ir.Operation
    parallel: list[int]  # loop dims, in order
    reduced: list[int]
    extents: list[int]


def _match(op: ir.Operation) -> _Reduction | None:
    if op.name != "linalg.generic" or len(op.results) or len(op.opview.outputs) != 1:
        return None
    iterators = [str(a) for a in op.attributes["iterator_types"]]
    if not op.opview.inputs or not _contiguous_reduction(op, iterators):
        return None
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.MemRefType) and t.has_static_shape for t in types):
        return None
    body = op.regions[0].blocks[0]
    terminator = body.operations[len(body.operations) - 1]
    combiner = terminator.operands[0].owner
    out_arg = body.arguments[len(body.arguments) - 1]
    if not isinstance(combiner, ir.OpView) or combiner.operation.name not in _KINDS:
        return None
    element = out_arg.type
    if not (isinstance(element, ir.F32Type) or isinstance(element, ir.IntegerType) and element.width == 32):
        return None  # the all-reduce shuffles move 32-bit values
    if out_arg not in list(combiner.operands) or len(list(out_arg.uses)) != 1:
        return None
    extents = _extents(op)
    parallel = [d for d, it in enumerate(iterators) if "parallel" in it]
    reduced = [d for d, it in enumerate(iterators) if "reduction" in it]
    if math.prod(extents[d] for d in reduced) < _MIN_EXTENT:
        return None
    return _Reduction(op, combiner.operation, parallel, reduced, extents)


def _contiguous_reduction(op: ir.Operation, iterators: list[str]) -> bool:
    """The first input's innermost (contiguous) dimension is reduced."""
    first = ir.AffineMapAttr(op.attributes["indexing_maps"][0]).value
    if not first.results:
        return False
    last = first.results[len(first.results) - 1]
    return isinstance(last, ir.AffineDimExpr) and "reduction" in iterators[ir.AffineDimExpr(last).position]


def _extents(op: ir.Operation) -> list[int]:
    """Loop extents from the operand shapes through the indexing maps."""
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    extents: list[int | None] = [None] * maps[0].n_dims
    for operand, amap in zip(op.operands, maps, strict=True):
        for size, expr in zip(ir.MemRefType(operand.type).shape, amap.results, strict=True):
            if isinstance(expr, ir.AffineDimExpr):
                extents[ir.AffineDimExpr(expr).position] = size
    if any(e is None for e in extents):
        raise PassError("cannot infer the loop extents of a reduction", op.location)
    return extents


def _threads(length: int, limit: int) -> int:
    """The largest power of two up to `limit` threads that all get an element."""
    threads = 32
    while threads * 2 <= min(length, limit):
        threads *= 2
    return threads


def _load_all(op: ir.Operation, ivs: list[ir.Value]) -> list[ir.Value]:
    """The input elements at loop point `ivs`, through each input's indexing map."""
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    values = []
    for operand, amap in zip(op.opview.inputs, maps, strict=False):
        indices = [
            affine.AffineApplyOp(ir.AffineMap.get(amap.n_dims, 0, [expr]), ivs).result
            for expr in amap.results
        ]
        values.append(memref.LoadOp(operand, indices).result)
    return values


def _clone_body(red: _Reduction, inputs: list[ir.Value]) -> ir.Value:
    """The body up to the combiner on `inputs`; the value the combiner folds in."""
    body = red.op.regions[0].blocks[0]
    mapping = dict(zip(list(body.arguments)[: len(inputs)], inputs, strict=True))
    for inner in list(body.operations)[:-1]:
        if inner == red.combiner:
            break
        clone = inner.clone()
        for i, operand in enumerate(clone.operands):
            if operand in mapping:
                clone.operands[i] = mapping[operand]
        for old, new in zip(inner.results, clone.results, strict=True):
            mapping[old] = new
    out_arg = body.arguments[len(body.arguments) - 1]
    value = next(v for v in red.combiner.operands if v != out_arg)
    return mapping.get(value, value)


def _combine(red: _Reduction, a: ir.Value, b: ir.Value) -> ir.Value:
    clone = red.combiner.clone()
    clone.operands[0], clone.operands[1] = a, b
    return clone.results[0]


@dataclass(frozen=True)
class VersaGpuReduce(Pass):
    name = "versa-gpu-reduce"
    summary = "Reductions over the innermost dimension as one GPU thread block per result"
    block: int = 256  # the most threads per block

    def run(self, module: ir.Operation) -> None:
        for red in filter(None, map(_match, collect(module, lambda op: op.name == "linalg.generic"))):
            with ir.InsertionPoint(red.op), red.op.location:
                self._rewrite(red)
            red.op.erase()

    def _rewrite(self, red: _Reduction) -> None:
        parallel = [red.extents[d] for d in red.parallel]
        reduced = [red.extents[d] for d in red.reduced]
        length = math.prod(reduced)
        threads = _threads(length, self.block)
        _, body = launch(math.prod(parallel), threads)
        with ir.InsertionPoint.at_block_begin(body):
            block_id, thread_id = body.arguments[0], body.arguments[3]
            outer = dict(zip(red.parallel, delinearize(block_id, parallel), strict=True))

            def point(linear: ir.Value) -> list[ir.Value]:
                inner = dict(zip(red.reduced, delinearize(linear, reduced), strict=True))
                return [outer.get(d, inner.get(d)) for d in range(len(red.extents))]

            first = _clone_body(red, _load_all(red.op, point(thread_id)))
            loop = scf.ForOp(arith.addi(thread_id, index(threads)), index(length), index(threads), [first])
            with ir.InsertionPoint(loop.body):
                value = _clone_body(red, _load_all(red.op, point(loop.induction_variable)))
                scf.YieldOp([_combine(red, loop.inner_iter_args[0], value)])
            kind = ir.Attribute.parse(f"#gpu<all_reduce_op {_KINDS[red.combiner.name]}>")
            total = gpu.AllReduceOp(loop.results[0], op=kind, uniform=True).result
            leader = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, thread_id, index(0)))
            with ir.InsertionPoint(leader.then_block):
                out = red.op.opview.outputs[0]
                out_map = ir.AffineMapAttr(red.op.attributes["indexing_maps"][len(red.op.operands) - 1]).value
                where = [
                    affine.AffineApplyOp(ir.AffineMap.get(out_map.n_dims, 0, [e]), point(index(0))).result
                    for e in out_map.results
                ]
                init = memref.LoadOp(out, where).result
                memref.StoreOp(_combine(red, init, total), out, where)
                scf.YieldOp([])
