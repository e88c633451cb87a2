"""versa-reshaped-results: a result that is a reshaped view of a local buffer is allocated in
the result's shape, so that it is written straight into the caller's buffer.

A kernel that works on rows (softmax, layer_norm of a rank-3 tensor) collapses its output to
rows x length and expands the result back. After bufferization the function returns
`memref.expand_shape %alloc`, which `buffer-results-to-out-params{hoist-static-allocs}` cannot
hoist: it keeps the alloc and copies the view into the out-param, one more pass over memory
and a full-size intermediate (layer_norm 8x512x768: 12 MiB, a third of its time). Here the
alloc takes the result's shape and its other users see the inverse reshape of it, which is
always valid for a contiguous buffer (a chain of reshapes is inverted step by step):

    %a = memref.alloc() : memref<4096x768xf32>           %b = memref.alloc() : memref<8x512x768xf32>
    ... writes %a ...                                →   %a = memref.collapse_shape %b [[0, 1], [2]]
    %r = memref.expand_shape %a [[0, 1], [2]] ...        ... writes %a ...
    return %r                                             return %b

A dynamic result (`?` dims) takes its sizes from the returned `expand_shape`'s `output_shape`
where they exist where the alloc is (a row kernel's dims, read from its input at the top).

No upstream pass does this: out-params hoisting only recognises a returned alloc.
"""

from dataclasses import dataclass

from versa.mlir import ir, memref

from ..common.base import Pass, collect
from ..common.matching import producer
from ..common.memrefs import identity_layout

_RESHAPES = ("memref.expand_shape", "memref.collapse_shape")


def _local_alloc(value: ir.Value) -> ir.Operation | None:
    """The identity-layout `memref.alloc` defining `value`, if it is one."""
    alloc = producer(value, "memref.alloc")
    if alloc is None:
        return None
    return alloc.operation if identity_layout(ir.MemRefType(value.type)) else None


def _available(value: ir.Value, at: ir.Operation) -> bool:
    """Whether `value` is defined before `at`: an argument of its block or an op before it."""
    if isinstance(value, ir.BlockArgument):
        return value.owner == at.block
    owner = value.owner.operation
    return owner.block == at.block and owner.is_before_in_block(at)


def _sizes(result: ir.Value, chain: list[ir.Operation], alloc: ir.Operation) -> list[ir.Value] | None:
    """The dynamic sizes of an alloc of `result`'s type at `alloc`, or None where they are not
    known there: those of a returned `expand_shape` of the alloc itself, if defined before it."""
    if ir.MemRefType(result.type).has_static_shape:
        return []
    if len(chain) != 1 or chain[0].name != "memref.expand_shape":
        return None
    sizes = list(chain[0].opview.output_shape)
    return sizes if all(_available(size, alloc) for size in sizes) else None


def _reshape(value: ir.Value) -> ir.Operation | None:
    """The expand_shape or collapse_shape defining `value`, if it is one."""
    op = producer(value, _RESHAPES[0]) or producer(value, _RESHAPES[1])
    return None if op is None else op.operation


def _inverse(reshape: ir.Operation, buffer: ir.Value, shape_of: ir.MemRefType) -> ir.Value:
    """`buffer` (the reshape's result type) reshaped back to the reshape's source type."""
    groups = reshape.attributes["reassociation"]
    if reshape.name == "memref.expand_shape":
        return memref.CollapseShapeOp(shape_of, buffer, groups).result
    return memref.ExpandShapeOp(shape_of, buffer, groups, [], list(shape_of.shape)).result


def _reshape_chain(value: ir.Value) -> tuple[ir.Operation, list[ir.Operation]] | None:
    """The local alloc that `value` is a chain of reshapes of, and the chain (alloc side first)."""
    chain = []
    while (op := _reshape(value)) is not None:
        chain.insert(0, op)
        value = op.operands[0]
    alloc = _local_alloc(value)
    return (alloc, chain) if alloc is not None and chain else None


def _own_result(ret: ir.Operation, index: int) -> None:
    """Rewrite result `index` of `ret` if it is a chain of reshapes of a local alloc."""
    found = _reshape_chain(ret.operands[index])
    if found is None:
        return
    alloc, chain = found
    views = [alloc.result] + [op.result for op in chain[:-1]]
    if any(use.owner.name == "func.return" for view in views for use in view.uses):
        return  # a buffer returned twice: out-params must not alias
    sizes = _sizes(ret.operands[index], chain, alloc)
    if sizes is None:
        return
    with ir.InsertionPoint(alloc), alloc.location:
        alignment = alloc.attributes["alignment"] if "alignment" in alloc.attributes else None
        value = memref.AllocOp(ret.operands[index].type, sizes, [], alignment=alignment).result
        ret.operands[index] = value
        for op, view in zip(reversed(chain), reversed(views), strict=True):
            value = _inverse(op, value, ir.MemRefType(view.type))
            view.replace_all_uses_with(value)
    for op in reversed(chain):
        if not list(op.result.uses):
            op.erase()
    alloc.erase()


@dataclass(frozen=True)
class VersaReshapedResults(Pass):
    name = "versa-reshaped-results"
    summary = "Allocate a result that is a reshape of a local buffer in the result's shape (no copy out)"

    def run(self, module: ir.Operation) -> None:
        for ret in collect(module, lambda op: op.name == "func.return"):
            for index in range(len(ret.operands)):
                _own_result(ret, index)
